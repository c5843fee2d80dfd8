"""The server's garbage-collector thresholds (service/cli/collector.py): what lives from
one move to the next is not promoted to the generation a full pass scans."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from service.cli import collector


@pytest.fixture
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


@pytest.mark.usefixtures("thresholds")
def test_tuning_sets_the_servers_thresholds() -> None:
    collector.tune()
    assert gc.get_threshold() == collector.THRESHOLDS == (50_000, 20, 100)


@pytest.mark.usefixtures("thresholds")
def test_objects_kept_between_two_moves_stay_young() -> None:
    """A seat's objects that outlive a few thousand allocations (the defaults promote them
    to the oldest generation) are still young after them once tuned."""
    collector.tune()
    gc.collect()
    kept = [[index] for index in range(1_000)]  # a seat's state between two moves
    churn = [[index] for index in range(20_000)]  # the allocations of other seats' moves
    del churn
    oldest = {id(item) for item in gc.get_objects(generation=2)}
    assert not any(id(item) in oldest for item in kept)
