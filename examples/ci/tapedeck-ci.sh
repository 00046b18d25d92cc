#!/usr/bin/env bash
# The tapedeck commands of examples/ci/github-actions.yml, one step each, so that the workflow and its test
# (test/slow/ci-recipe.test.ts) run exactly the same commands. Copy it beside the workflow (.github/tapedeck-ci.sh).
#
#   tapedeck-ci.sh pr-plan ENV      validate (annotations) and plan the pull request for ENV (--refresh changed: only
#                                   what the pull request changed is read). plan-ENV.md is always written: the plan
#                                   (a guardrail's denial in it, named), or why there is none; the comment and the
#                                   job summary show it. Exit 1 when the documents have errors or a rule denies.
#   tapedeck-ci.sh main-plan ENV    a fresh full plan of main for ENV: plan-ENV.json (the artifact) and plan-ENV.md
#                                   (the job summary); exit 1 when a rule denies (nothing is then applied)
#   tapedeck-ci.sh main-apply ENV   show plan-ENV.json, then apply exactly it (refused, writing nothing, if the
#                                   platform, the configuration or the state moved since it was made): apply-ENV.md
#   tapedeck-ci.sh drift ENV        a full plan (--refresh full: every resource read): drift-ENV.json (the artifact),
#                                   drift-ENV.md (the summary), the plan printed; exit 1 when the platform differs from
#                                   main, telling drift (changed outside tapedeck) from pending changes (merged into
#                                   main, not applied yet)
#
# Each step prints KEY=VALUE lines for $GITHUB_OUTPUT: changes=true|false and denied=true|false (plan steps), drift=N
# and pending=N (drift). PLATFORM_DIR (default platform) holds the documents and tapedeck.yaml; TAPEDECK_OUT (default .)
# is where the files go; TAPEDECK_CMD (default `npx --no-install tapedeck`) runs tapedeck. Tokens come from the
# variables tapedeck.yaml names per environment and role (token_env); the state URL from TAPEDECK_STATE_URL.
#
# Approved exceptions to the guardrails: PLATFORM_DIR/allowances/ENV.txt, one RULE=REASON a line (# comments), changed
# in a pull request and reviewed like code. Every plan and apply of ENV is given it (--allow-file), read from the
# checkout of the commit being planned or applied, never from a saved plan (apply --plan trusts only its own).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 pr-plan|main-plan|main-apply|drift ENV" >&2; exit 64; }
step=$1
env=$2
dir=${PLATFORM_DIR:-platform}
out=${TAPEDECK_OUT:-.}
read -r -a run <<< "${TAPEDECK_CMD:-npx --no-install tapedeck}"
tapedeck() { "${run[@]}" "$@"; }

allow=()
allowances=$dir/allowances/$env.txt
if [ -f "$allowances" ]; then allow=(--allow-file "$allowances"); fi
allowed() { tapedeck "$@" ${allow[@]+"${allow[@]}"}; }

# A plan: Markdown into MD, the saved plan into JSON. Prints changes= and denied=; returns 1 for a denial (the plan
# written all the same: plan writes --out before it judges), else the plan's own failure code.
plan_into() {
  local md=$1 json=$2 code=0
  shift 2
  rm -f "$json"
  allowed plan "$dir" --env "$env" --detailed-exitcode --out "$json" "$@" > "$md" || code=$?
  case $code in
    0) echo changes=false; echo denied=false ;;
    2) echo changes=true; echo denied=false ;;
    1)
      [ -s "$json" ] || return 1
      echo changes=true
      echo denied=true
      return 1
      ;;
    *) return "$code" ;;
  esac
}

# Why a plan step has no plan to show: said in its Markdown, so the comment and the summary never go quiet.
not_planned() {
  printf '### tapedeck plan for `%s`: not planned\n\n%s\n' "$env" "$1" > "$out/plan-$env.md"
}

case $step in
  pr-plan)
    if ! tapedeck validate "$dir" --env "$env" --format github >&2; then
      not_planned "The documents have errors (annotated on their lines):"
      tapedeck validate "$dir" --env "$env" --format markdown >> "$out/plan-$env.md" || true
      echo changes=false
      exit 1
    fi
    code=0
    plan_into "$out/plan-$env.md" "$out/plan-$env.json" --format markdown --refresh changed || code=$?
    [ -s "$out/plan-$env.json" ] || not_planned "The plan failed (exit $code): see the job's log."
    exit "$code"
    ;;
  main-plan)
    code=0
    plan_into "$out/plan-$env.md" "$out/plan-$env.json" --format markdown || code=$?
    [ -s "$out/plan-$env.json" ] || not_planned "The plan failed (exit $code): see the job's log."
    exit "$code"
    ;;
  main-apply)
    tapedeck show "$out/plan-$env.json" >&2
    allowed apply --plan "$out/plan-$env.json" --env "$env" --yes --lock-timeout 600 --format markdown > "$out/apply-$env.md"
    ;;
  drift)
    code=0
    plan_into "$out/drift-$env.md" "$out/drift-$env.json" --format markdown --refresh full > /dev/null || code=$?
    [ -s "$out/drift-$env.json" ] || exit "$code"
    tapedeck show "$out/drift-$env.json" >&2
    # Drift: a field the platform changed since the last apply, which the plan puts back. Pending: a value the
    # documents changed since the last apply (a create, a release, a field set anew): merged, not applied yet.
    node - "$out/drift-$env.json" <<'JS'
const plan = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const drift = [], pending = [];
for (const c of plan.changes.filter((c) => c.action !== 'noop')) {
  const moved = new Map((c.drift ?? []).map((d) => [d.path, d]));
  const undone = (c.diff ?? []).filter((d) => moved.has(d.path) && same(moved.get(d.path).before, d.after));
  if (undone.length) drift.push(`${c.address}: ${undone.map((d) => d.path).join(', ')}`);
  if (c.action !== 'update' || undone.length < (c.diff ?? []).length) pending.push(`${c.action} ${c.address}`);
}
console.log(`drift=${drift.length}`);
console.log(`pending=${pending.length}`);
const env = plan.environment.name;
if (drift.length)
  console.error(`drift in ${env}: ${drift.length} resource(s) changed outside tapedeck since the last apply: ${drift.join('; ')}`);
if (pending.length)
  console.error(`pending in ${env}: ${pending.length} change(s) in main not applied yet (approve or re-run main's workflow): ${pending.join('; ')}`);
process.exitCode = drift.length || pending.length ? 1 : 0;
JS
    ;;
  *)
    echo "unknown step $step" >&2
    exit 64
    ;;
esac
