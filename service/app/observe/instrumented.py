"""The event store as the service uses it: every operation of the store's interface
(service/store/base.py) timed and its failures counted, derived from that interface.

`instrumented(store, metrics)` wraps a store and its coordination: each async method
of every part of the store (base.EventStore: the event log, snapshots, keeping, shared
sets, the connection) and of Coordination is timed under its own name
(`ludotheque_store_operation_duration_seconds{operation}`, and
`ludotheque_store_errors_total` when the store could not be reached); the other
members (subscriptions, notices, `close`) are the wrapped store's own. A method added
to the interface is timed without a line here. `health` feeds the shards' gauges."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

from service.app.observe.metrics import Metrics
from service.store.base import Coordination, EventStore, StoreHealth, StoreUnavailable

# Not timed: closing the store is not one of its operations, and its health is
# exported as gauges (checked every second by readiness) instead.
UNTIMED = frozenset({"close", "health"})


def operations(interface: type) -> list[str]:
    """The async methods `interface` (a Protocol) declares, itself or through the parts
    it is made of: the operations to time."""
    return sorted(
        {
            name
            for part in interface.__mro__
            for name, member in vars(part).items()
            if not name.startswith("_") and inspect.iscoroutinefunction(member) and name not in UNTIMED
        }
    )


class _Timing:
    """Times one store operation (a context manager: no coroutine of its own around
    the operation's): its duration observed, and a failure to reach the store counted."""

    __slots__ = ("_metrics", "_operation", "_start")

    def __init__(self, metrics: Metrics, operation: str) -> None:
        self._metrics = metrics
        self._operation = operation
        self._start = time.perf_counter()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> None:
        metrics, operation = self._metrics, self._operation
        if isinstance(error, StoreUnavailable):
            metrics.labelled(metrics.store_errors, operation).inc()
            metrics.labelled(metrics.redis_errors, error.reason).inc()
        metrics.labelled(metrics.store_seconds, operation).observe(time.perf_counter() - self._start)


def _timed(metrics: Metrics, operation: str, call: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(call)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        with _Timing(metrics, operation):
            return await call(*args, **kwargs)

    return timed


class _Instrumented:
    """`inner` with each of `interface`'s operations timed; anything else is inner's."""

    def __init__(self, inner: Any, interface: type, metrics: Metrics) -> None:
        self.inner = inner
        for name in operations(interface):
            setattr(self, name, _timed(metrics, name, getattr(inner, name)))

    def __getattr__(self, name: str) -> Any:  # only for what __init__ did not time
        return getattr(self.inner, name)


class _InstrumentedStore(_Instrumented):
    def __init__(self, inner: EventStore, metrics: Metrics) -> None:
        super().__init__(inner, EventStore, metrics)
        self.store = inner
        self.coordination = _Instrumented(inner.coordination, Coordination, metrics)
        self._metrics = metrics
        self._shards: set[str] = set()  # the shards the gauges have a value for

    async def health(self) -> StoreHealth:
        """The store's health, also exported as gauges (shards gone since are dropped); a
        shard that could not be written counts as a failed operation, `health`, as any
        other (readiness checks every second: the errors show without traffic too)."""
        health = await self.store.health()
        metrics = self._metrics
        for shard in health.shards:
            if not shard.writable:
                metrics.labelled(metrics.store_errors, "health").inc()
                metrics.labelled(metrics.redis_errors, shard.reason).inc()
        names = {shard.name for shard in health.shards}
        for gone in self._shards - names:
            metrics.shard_writable.remove(gone)
            metrics.memory_used.remove(gone)
        self._shards = names
        for shard in health.shards:
            metrics.shard_writable.labels(shard.name).set(1 if shard.writable else 0)
            metrics.memory_used.labels(shard.name).set(shard.memory_used)
        return health


def instrumented(store: EventStore, metrics: Metrics) -> EventStore:
    """`store` with every operation timed and its shards' health exported."""
    return cast(EventStore, _InstrumentedStore(store, metrics))
