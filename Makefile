# The README's two commands: `make run` (the service) and `make test` (everything CI checks).
# `make bench` measures the server and rewrites docs/PERFORMANCE.md (a few minutes).
.PHONY: run test proto bootstrap bench

run: bootstrap
	.venv/bin/ludotheque serve

test:
	scripts/check.sh

bench: bootstrap
	.venv/bin/ludotheque bench --output docs/PERFORMANCE.md

proto: bootstrap
	.venv/bin/python scripts/genproto.py

bootstrap:
	scripts/bootstrap.sh
