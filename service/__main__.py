"""`python -m service` is the `ludotheque` command."""

from service.cli import main

raise SystemExit(main())
