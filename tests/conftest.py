"""Test-wide settings: hypothesis profiles, the session's Redis fixtures and the
module's server.

HYPOTHESIS_PROFILE=ci (the default) plays enough random games to matter in a few
seconds per property; =thorough plays ten times more (run it before a release or
after touching an engine)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from tests.support.redis import redis_cluster, redis_server
from tests.support.server import server

# The session's one Redis and one Redis Cluster (started when a test first asks),
# shared by every directory's tests; a module's real server (for the end-to-end and
# web tests; a module may have its own, with settings of its own).
__all__ = ["redis_cluster", "redis_server", "server"]

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("thorough", parent=settings.get_profile("ci"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Modules that write the same files (the TypeScript client's build) run on one worker.
SHARED_FILES = {
    "tests/tooling/test_typescript.py": "typescript",
    "tests/tooling/test_typescript_pages.py": "typescript",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With `-n` (pytest-xdist, --dist loadgroup, as scripts/check.sh runs it): each module's
    tests on one worker, so that a module's server or browser starts once."""
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(SHARED_FILES.get(module, module)))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nemesis", "the nemesis test (tests/nemesis)")
    group.addoption(
        "--nemesis-minutes",
        type=float,
        default=0.0,
        help="minutes of faults per configuration (default: the short schedule CI runs)",
    )
    group.addoption("--nemesis-seed", type=int, default=28, help="the seed of the schedule of faults")
