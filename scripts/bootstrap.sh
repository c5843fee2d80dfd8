#!/usr/bin/env bash
# Sets up everything the service and its tests need, on a fresh machine too:
#   .venv/                  the project, its client and dev tools (pinned by constraints.txt)
#   tools/node_modules/     buf, from npm, to lint proto/
#   clients/typescript/node_modules/   the TypeScript client's packages (protoc-gen-es, tsc...)
#   clients/web/node_modules/          the web app's packages (esbuild; puppeteer-core and
#                           axe-core for its browser tests), then clients/web/dist/, the
#                           built app the server serves at / (rebuilt when a source changed)
#   redis-server, redis-cli, chromium, jq   Debian packages, when missing: the Redis store's
#                           tests start their own redis-server processes (no system service
#                           needed); the web app's tests drive /usr/bin/chromium headless;
#                           the runbook's commands pipe logs through jq
# Cheap when nothing changed: a stamp of the dependency files skips the installs, and
# the web app's build is skipped when its inputs are unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    missing+=(redis-server)
fi
if [ ! -x /usr/bin/chromium ]; then
    missing+=(chromium)
fi
if ! command -v jq >/dev/null; then
    missing+=(jq)  # the runbook's commands (docs/OPERATIONS.md) are run by tests/deploy/test_runbook.py
fi
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo >/dev/null; then
        as_root=(sudo)
    else
        echo "bootstrap: ${missing[*]} missing and this user cannot install them:" >&2
        echo "  run 'apt-get install -y ${missing[*]}' as root (or install sudo), then run this again" >&2
        exit 1
    fi
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi

stamp=.venv/.bootstrap-stamp
wanted=$(cat pyproject.toml clients/python/pyproject.toml constraints.txt tools/package-lock.json \
    clients/typescript/package-lock.json clients/web/package-lock.json | sha256sum)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ] || [ ! -d clients/typescript/node_modules ] \
    || [ ! -d clients/web/node_modules ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt \
        -e ./clients/python -e '.[dev]'
    (cd tools && npm ci --no-audit --no-fund --loglevel=error)
    (cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error)
    (cd clients/web && npm ci --no-audit --no-fund --loglevel=error)
    echo "$wanted" > "$stamp"
fi
# The web app, built by esbuild into clients/web/dist/ when any of its inputs changed.
(cd clients/web && node build.mjs --if-stale)
