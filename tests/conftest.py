"""Test-wide settings: hypothesis profiles.

HYPOTHESIS_PROFILE=ci (the default) plays enough random games to matter in a few
seconds per property; =thorough plays ten times more (run it before a release or
after touching an engine)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("thorough", parent=settings.get_profile("ci"), max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
