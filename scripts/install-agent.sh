#!/bin/sh
# Installs tapedeck as the agent runs it: the package packed from this checkout (npm pack: what the registry would
# ship, files listed in package.json) installed into DEST with its production dependencies only (npm install
# --omit=dev, no install scripts). The Dockerfile (examples/agent/Dockerfile) runs exactly this; so does its test
# (test/slow/agent-install.test.ts), into an empty directory, and then runs the agent from DEST alone as an
# unprivileged user. Needs dist/ built (npm ci builds it); git must be on the machine that runs the agent.
#
#   sh scripts/install-agent.sh DEST     then run DEST/node_modules/.bin/tapedeck agent ...
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 64; }
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
dest=$(cd "$1" && pwd)
[ -f "$here/dist/cli/bin.js" ] || { echo "$0: dist/ is not built (run npm ci or npm run build first)" >&2; exit 1; }
command -v git > /dev/null || echo "$0: warning: git is not installed here; tapedeck agent needs it" >&2
pack=$(mktemp -d)
trap 'rm -rf "$pack"' EXIT
# --ignore-scripts: dist/ is built already; packing must not build it again with whatever is installed.
(cd "$here" && npm pack --ignore-scripts --silent --pack-destination "$pack" > /dev/null)
tarball=$(ls "$pack"/*.tgz)
cd "$dest"
[ -f package.json ] || printf '{ "name": "tapedeck-agent", "private": true }\n' > package.json
npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-package-lock --loglevel=error "$tarball"
"$dest/node_modules/.bin/tapedeck" --version
