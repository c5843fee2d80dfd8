#!/usr/bin/env bash
# Sets up everything the service and its tests need, on a fresh machine too:
#   .venv/                  the project, its client and dev tools (pinned by constraints.txt)
#   tools/node_modules/     buf, from npm, to lint proto/
#   clients/typescript/node_modules/   the TypeScript client's packages (protoc-gen-es, tsc...)
#   redis-server, redis-cli the Debian package, when missing: the Redis store's tests start
#                           their own redis-server processes (no system service needed)
# Cheap when nothing changed: a stamp of the dependency files skips the installs.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo >/dev/null; then
        as_root=(sudo)
    else
        echo "bootstrap: redis-server is missing and this user cannot install it:" >&2
        echo "  run 'apt-get install -y redis-server' as root (or install sudo), then run this again" >&2
        exit 1
    fi
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends redis-server >/dev/null
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi

stamp=.venv/.bootstrap-stamp
wanted=$(cat pyproject.toml clients/python/pyproject.toml constraints.txt tools/package-lock.json \
    clients/typescript/package-lock.json | sha256sum)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ] || [ ! -d clients/typescript/node_modules ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt \
        -e ./clients/python -e '.[dev]'
    (cd tools && npm ci --no-audit --no-fund --loglevel=error)
    (cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error)
    echo "$wanted" > "$stamp"
fi
