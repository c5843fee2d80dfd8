# The README's two commands: `make run` (the service) and `make test` (everything CI checks).
.PHONY: run test proto bootstrap

run: bootstrap
	.venv/bin/ludotheque serve

test:
	scripts/check.sh

proto: bootstrap
	.venv/bin/python scripts/genproto.py

bootstrap:
	scripts/bootstrap.sh
