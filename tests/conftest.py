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
from tests.support.typescript_package import typescript_package

# The session's one Redis and one Redis Cluster (started when a test first asks),
# shared by every directory's tests; a module's real server (for the end-to-end and
# web tests; a module may have its own, with settings of its own).
__all__ = ["redis_cluster", "redis_server", "server", "typescript_package"]

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("thorough", parent=settings.get_profile("ci"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nemesis", "the nemesis test (tests/nemesis)")
    group.addoption(
        "--nemesis-minutes",
        type=float,
        default=0.0,
        help="minutes of faults per configuration (default: the short schedule CI runs)",
    )
    group.addoption("--nemesis-seed", type=int, default=28, help="the seed of the schedule of faults")
