"""Readiness: whether this server should get calls, answered at once from the store's
health as last probed (kept fresh by the server's watcher, service/cli/serve.py).

Every pod sees the same store, so a shard that cannot take writes is not this pod's
fault, and taking the pod out of its Service would take every pod out, stopping the
games of the shards that serve too. So a pod is ready while *some* shard takes writes;
a shard that cannot (down, frozen, read-only, short of replicas for WAIT, near its
memory limit) is reported as degraded (its games answer UNAVAILABLE, naming it; the
`ludotheque_store_shard_writable` gauge and its alert say which). A pod is not ready
when no shard takes writes (the store is down or out of this pod's reach), or when
its view of the store is stale (probes that do not come back): it cannot tell."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from service.store.base import StoreConnection, StoreHealth

BUDGET = 0.15  # seconds a readiness answer may wait for a probe (it must answer within 200 ms)
FRESH = 3.0  # seconds a probe's view stands for now (the watcher probes every second)


@dataclass(frozen=True, slots=True)
class Readiness:
    """What readiness answers: `ready`, and the shards' problems (why not ready, or
    which shards cannot take writes while the others do)."""

    ready: bool
    problems: str = ""

    @property
    def degraded(self) -> str:
        """The shards that cannot take writes while this pod is ready ("" if none)."""
        return self.problems if self.ready else ""


def judged(health: StoreHealth, memory_threshold: float) -> Readiness:
    """The readiness `health` makes: ready while at least one shard takes writes."""
    problems = health.problems + [
        f"{shard.name}: {shard.memory_used:.0%} of its memory limit in use"
        for shard in health.shards
        if shard.writable and shard.memory_used > memory_threshold
    ]
    troubled = {shard.name for shard in health.shards if not shard.writable or shard.memory_used > memory_threshold}
    serving = [shard for shard in health.shards if shard.name not in troubled]
    return Readiness(bool(serving), "; ".join(problems) or ("" if serving else "the store has no shard"))


class StoreWatch:
    """The store's health as last probed: `probe` looks again (one probe at a time),
    `current` answers within BUDGET."""

    def __init__(
        self, store: StoreConnection, memory_threshold: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._store = store
        self._threshold = memory_threshold
        self._clock = clock
        self._view: Readiness | None = None
        self._at = 0.0  # when the view was probed (the clock's time)
        self.shards: frozenset[str] = frozenset()  # the shards of the last probe (Redis: its masters)
        self._probing: asyncio.Task[Readiness] | None = None

    async def probe(self) -> Readiness:
        """Probes the store now (or waits for the probe under way) and keeps its view."""
        if self._probing is None or self._probing.done():
            self._probing = asyncio.create_task(self._probe(), name="readiness-probe")
        return await asyncio.shield(self._probing)

    async def _probe(self) -> Readiness:
        try:
            health = await self._store.health()
            self.shards = frozenset(shard.name for shard in health.shards)
            view = judged(health, self._threshold)
        except Exception as error:  # a check that cannot tell says not ready
            view = Readiness(False, f"the store's health could not be probed: {type(error).__name__}: {error}")
        self._view, self._at = view, self._clock()
        return view

    async def current(self) -> Readiness:
        """The view of the last probe, if fresh; else a probe's, if it answers within
        BUDGET; else not ready (the store's health is not known)."""
        view = self._view
        if view is not None and self._clock() - self._at < FRESH:
            return view
        try:
            async with asyncio.timeout(BUDGET):
                return await self.probe()
        except TimeoutError:
            since = f" for {self._clock() - self._at:.0f} s" if view is not None else " yet"
            return Readiness(False, f"the store's health is not known{since}: its probe has not answered")
