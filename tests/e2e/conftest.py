"""A real server process shared by the end-to-end tests of a module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.server import ServerProcess, watched_server


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with watched_server() as process:
        yield process
