#!/usr/bin/env bash
# The whole check, as CI runs it: lint, types, then every test.
# Extra arguments go to pytest (e.g. scripts/check.sh -k mooki).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest --durations=15 "$@"
