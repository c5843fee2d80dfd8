"""The hostile suite: each attack a hostile client tried (issue 27), reproduced against a
real server started as the README does (tests/support/server.py), with raw sockets and
hand-made HTTP/2 frames where a library would not misbehave. Each test says what held
before its fix and what must hold now; together they are the table of docs/SECURITY.md.

The attacks are kept to a few seconds each. `--hostile-long` runs them longer (ten
times the volume), to look at what the limits cost under a sustained attack."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.server import ServerProcess, running_server


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--hostile-long", action="store_true", default=False, help="run the hostile suite's attacks ten times longer"
    )


@pytest.fixture(scope="session")
def volume(request: pytest.FixtureRequest) -> int:
    """How much more than the default each attack sends (1, or 10 with --hostile-long)."""
    return 10 if request.config.getoption("--hostile-long") else 1


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with running_server() as process:
        yield process
        assert process.process.poll() is None, f"the server died:\n{process.log()}"
