# The README's two commands: `make run` (the service) and `make test` (everything CI checks).
# `make bench` measures the server and rewrites docs/PERFORMANCE.md (a few minutes).
.PHONY: run test proto proto-baseline bootstrap bench

run: bootstrap
	.venv/bin/ludotheque serve

test:
	scripts/check.sh

bench: bootstrap
	.venv/bin/ludotheque bench --output docs/PERFORMANCE.md

proto: bootstrap
	.venv/bin/python scripts/genproto.py

# Accept the current proto/ as the API's new baseline (buf breaking checks against it).
proto-baseline: bootstrap
	.venv/bin/python scripts/lint_proto.py --update-baseline

bootstrap:
	scripts/bootstrap.sh
