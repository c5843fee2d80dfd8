"""The instrumented store is derived from the store's interface: every async operation
of EventStore and Coordination is timed under its name, failures to reach the store
are counted, and the rest is the wrapped store's own."""

from __future__ import annotations

import pytest

from service.app.observe.instrumented import UNTIMED, instrumented, operations
from service.app.observe.metrics import Metrics
from service.store.base import PARTS, Coordination, EventStore, NewGame, StoreUnavailable
from service.store.memory import MemoryStore
from tests.support.aio import async_test


def timed(metrics: Metrics, operation: str) -> float:
    return (
        metrics.registry.get_sample_value("ludotheque_store_operation_duration_seconds_count", {"operation": operation})
        or 0
    )


def test_every_async_operation_of_the_interfaces_is_timed() -> None:
    store = instrumented(MemoryStore(), Metrics())
    for name in operations(EventStore):
        assert getattr(store, name).__wrapped__ is not None, name
    for name in operations(Coordination):
        assert getattr(store.coordination, name).__wrapped__ is not None, name
    assert {"append", "read", "create", "mark_once", "claim", "admit"} <= set(operations(EventStore))
    assert {"renew_process", "hold", "schedule", "notify"} <= set(operations(Coordination))
    assert not UNTIMED & set(operations(EventStore))
    # Every part's operations, and nothing but them: a part added to the store is timed.
    assert set(operations(EventStore)) == {name for part in PARTS for name in operations(part)}


@async_test
async def test_an_operation_is_timed_and_a_store_out_of_reach_is_counted() -> None:
    metrics = Metrics()
    memory = MemoryStore()
    store = instrumented(memory, metrics)
    await store.create(NewGame("g1", "mooki", "active", b"record", b"", [b"e1"], 0))
    assert [item.data for item in await store.read("g1", 1)] == [b"e1"]
    assert timed(metrics, "create") == 1 and timed(metrics, "read") == 1
    await store.coordination.schedule("k", 5)
    assert timed(metrics, "schedule") == 1
    await memory.close()
    with pytest.raises(StoreUnavailable):
        await store.info("g1")
    errors = metrics.registry.get_sample_value("ludotheque_store_errors_total", {"operation": "info"})
    assert errors == 1 and timed(metrics, "info") == 1
