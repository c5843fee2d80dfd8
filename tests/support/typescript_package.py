"""The TypeScript client's build (clients/typescript/dist/), which `npm test`, `npm
publish` and the pages' bundles rebuild in place: a module that uses it holds it, so that
two test processes (scripts/check.sh runs the suite on every core) never build it at
once."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator

import pytest

from tests.support.server import ROOT

LOCK = ROOT / "clients" / "typescript" / ".build-lock"


@pytest.fixture(scope="module")
def typescript_package() -> Iterator[None]:
    """Holds the package's build for the module's tests (a lock on a file beside it)."""
    with LOCK.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another process's module finishes first
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
