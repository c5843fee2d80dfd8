#!/usr/bin/env bash
# Sets up everything the service and its tests need, on a fresh machine too:
#   .venv/                  the project, its client and dev tools (pinned by constraints.txt)
#   tools/node_modules/     buf, from npm, to lint proto/
#   clients/typescript/node_modules/   the TypeScript client's packages (protoc-gen-es, tsc...)
# Cheap when nothing changed: a stamp of the dependency files skips the installs.
set -euo pipefail
cd "$(dirname "$0")/.."

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
