"""A real server process shared by the end-to-end tests of a module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.server import ServerProcess, running_server


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with running_server() as process:
        yield process
        assert process.process.poll() is None, f"the server died:\n{process.log()}"
