#!/usr/bin/env bash
# The whole check, as CI runs it: lint, types, then every test — on every core first
# (pytest-xdist, each module on one worker), then the tests marked `alone` (failovers,
# whose timeouts need the machine to themselves) one at a time.
# Extra arguments go to pytest, in one run on one core (e.g. scripts/check.sh -k mooki).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest --durations=15 "$@"
fi
workers=${TEST_WORKERS:-$(nproc)}
.venv/bin/python -m pytest -n "$workers" --dist loadfile -m "not alone" --durations=15
.venv/bin/python -m pytest -m alone --durations=5
