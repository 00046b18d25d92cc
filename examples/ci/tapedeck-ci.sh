#!/usr/bin/env bash
# The tapedeck commands of examples/ci/github-actions.yml, one step each, so that the workflow and its test
# (test/slow/ci-recipe.test.ts) run exactly the same commands. Copy it beside the workflow (.github/tapedeck-ci.sh).
#
#   tapedeck-ci.sh pr-plan ENV      validate (annotations) and plan the pull request for ENV: plan-ENV.md, the comment;
#                                   --refresh changed: only what the pull request changed is read (the plan says how
#                                   many documents it took from the state unread)
#   tapedeck-ci.sh main-plan ENV    a fresh full plan of main for ENV: plan-ENV.json (the artifact) and plan-ENV.md
#                                   (the job summary)
#   tapedeck-ci.sh main-apply ENV   show plan-ENV.json, then apply exactly it (refused, writing nothing, if the
#                                   platform, the configuration or the state moved since it was made): apply-ENV.md
#   tapedeck-ci.sh drift ENV        a full plan (--refresh full: every resource read, so drift in the documents the
#                                   pull requests did not touch is found here); exit 1 when the platform differs
#                                   from main (drift-ENV.json)
#
# Each plan step prints changes=true or changes=false (append it to $GITHUB_OUTPUT). PLATFORM_DIR (default
# platform) holds the documents and tapedeck.yaml; TAPEDECK_OUT (default .) is where the files go; TAPEDECK_CMD
# (default `npx --no-install tapedeck`) runs tapedeck. The token, the state URL and the base URL come from the
# environment (TAPEDECK_TOKEN, TAPEDECK_STATE_URL) and tapedeck.yaml, as for every run.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 pr-plan|main-plan|main-apply|drift ENV" >&2; exit 64; }
step=$1
env=$2
dir=${PLATFORM_DIR:-platform}
out=${TAPEDECK_OUT:-.}
read -r -a run <<< "${TAPEDECK_CMD:-npx --no-install tapedeck}"
tapedeck() { "${run[@]}" "$@"; }

# A plan into FILE; plan's --detailed-exitcode says 0 (no changes), 2 (changes) or that it failed.
plan_into() {
  local file=$1 code=0
  shift
  tapedeck plan "$dir" --env "$env" --detailed-exitcode "$@" > "$file" || code=$?
  case $code in
    0) echo changes=false ;;
    2) echo changes=true ;;
    *) return "$code" ;;
  esac
}

case $step in
  pr-plan)
    tapedeck validate "$dir" --env "$env" --format github >&2
    plan_into "$out/plan-$env.md" --format markdown --refresh changed
    ;;
  main-plan)
    plan_into "$out/plan-$env.md" --format markdown --out "$out/plan-$env.json"
    ;;
  main-apply)
    tapedeck show "$out/plan-$env.json" >&2
    tapedeck apply --plan "$out/plan-$env.json" --env "$env" --yes --lock-timeout 600 --format markdown > "$out/apply-$env.md"
    ;;
  drift)
    result=$(plan_into "$out/drift-$env.json" --json --refresh full)
    echo "$result"
    if [ "$result" = changes=true ]; then
      echo "drift in $env: the platform differs from main (drift-$env.json)" >&2
      exit 1
    fi
    ;;
  *)
    echo "unknown step $step" >&2
    exit 64
    ;;
esac
