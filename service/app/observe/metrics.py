"""Prometheus metrics: what the service exports at /metrics, in one place.

Each server gets its own CollectorRegistry, so several apps in one process (tests)
never share counters. Names follow the Prometheus conventions (base units, _total
for counters); the gRPC ones use the names of the common gRPC server instrumentation
(grpc_server_*) so existing dashboards work."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.metrics import MetricWrapperBase

from service.store.base import (
    KEEP_FOREVER,
    Admission,
    AppendResult,
    Coordination,
    EventStore,
    GameInfo,
    GamePage,
    Keep,
    StoredEvent,
    StoredSnapshot,
    StoreHealth,
    StoreUnavailable,
)

# Latency buckets from 0.5 ms to 10 s: moves are fast, store round trips slower.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}
        r = self.registry
        self.grpc_started = Counter(
            "grpc_server_started_total",
            "RPCs started on the server.",
            ["grpc_type", "grpc_service", "grpc_method"],
            registry=r,
        )
        self.grpc_handled = Counter(
            "grpc_server_handled_total",
            "RPCs completed on the server, whatever their status.",
            ["grpc_type", "grpc_service", "grpc_method", "grpc_code"],
            registry=r,
        )
        self.grpc_seconds = Histogram(
            "grpc_server_handling_seconds",
            "Time to handle an RPC (a stream: until it ends).",
            ["grpc_type", "grpc_service", "grpc_method"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.http_requests = Counter(
            "ludotheque_http_requests_total",
            "HTTP requests, by route template and status.",
            ["method", "route", "status"],
            registry=r,
        )
        self.http_seconds = Histogram(
            "ludotheque_http_request_duration_seconds",
            "Time to answer an HTTP request (a server-sent event stream: until it ends).",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.commands = Counter(
            "ludotheque_commands_total",
            "Commands submitted, by game kind, command and outcome "
            "(accepted, replayed, illegal, invalid, stale, unauthorised, unavailable, error).",
            ["kind", "command", "outcome"],
            registry=r,
        )
        self.command_seconds = Histogram(
            "ludotheque_command_duration_seconds",
            "Time to decide, store and answer an accepted command (bot moves included).",
            ["kind"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.store_seconds = Histogram(
            "ludotheque_store_operation_duration_seconds",
            "Time of event store operations.",
            ["operation"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.store_errors = Counter(
            "ludotheque_store_errors_total",
            "Event store operations that failed because the store was unreachable.",
            ["operation"],
            registry=r,
        )
        self.append_conflicts = Counter(
            "ludotheque_append_conflicts_total",
            "Appends refused because another process moved the game first (then retried).",
            ["kind"],
            registry=r,
        )
        self.conflict_storms = Counter(
            "ludotheque_conflict_storms_total",
            "Commands that gave up (ABORTED) after conflicting on every retry: a game moved by many writers at once.",
            ["kind"],
            registry=r,
        )
        self.store_behind = Counter(
            "ludotheque_store_behind_total",
            "Times the event store was found behind a cached game or a live stream (it no longer held "
            "versions this server had been given: a Redis failover lost them).",
            ["kind"],
            registry=r,
        )
        self.history_losses = Counter(
            "ludotheque_history_losses_total",
            "Losses of acknowledged versions recorded in a game's history, by whether their numbers had "
            "been used again (reused: the history forked).",
            ["kind", "reused"],
            registry=r,
        )
        self.redis_errors = Counter(
            "ludotheque_redis_errors_total",
            "Failures talking to Redis, by reason (connection, timeout, cluster_down, moved, readonly, "
            "loading, replicas, out_of_memory, refused, client_bug...).",
            ["reason"],
            registry=r,
        )
        self.shard_writable = Gauge(
            "ludotheque_store_shard_writable",
            "1 when a write (and WAIT, when writes wait for replicas) reached the store's shard (a Redis "
            "master) at the last readiness check, else 0.",
            ["shard"],
            registry=r,
        )
        self.memory_used = Gauge(
            "ludotheque_store_memory_used_ratio",
            "Memory a store shard uses, as a fraction of its limit (Redis used_memory / maxmemory; 0: no limit).",
            ["shard"],
            registry=r,
        )
        self.idempotent_replays = Counter(
            "ludotheque_idempotent_replays_total",
            "Commands whose command_id had already been applied: answered, not replayed.",
            ["kind"],
            registry=r,
        )
        self.subscriptions = Gauge(
            "ludotheque_active_subscriptions",
            "Event streams open right now (gRPC StreamEvents and server-sent events).",
            registry=r,
        )
        self.websocket_closes = Counter(
            "ludotheque_websocket_closes_total",
            "Play sessions over WebSocket ended by the server, by the close code it sent "
            "(1000: normal; 4000 + a gRPC status code: an error, e.g. 4008 a client reading too slowly).",
            ["code"],
            registry=r,
        )
        self.stream_lag = Histogram(
            "ludotheque_stream_delivery_lag_seconds",
            "Time from a move's events being recorded to their delivery to a follower (live events only; "
            "the recording pod's clock against the delivering pod's).",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.cached_games = Gauge(
            "ludotheque_cached_games",
            "Games whose state this process keeps in memory.",
            registry=r,
        )
        self.games_created = Counter(
            "ludotheque_games_created_total",
            "Games created, by kind.",
            ["kind"],
            registry=r,
        )
        self.snapshots_written = Counter(
            "ludotheque_snapshots_written_total",
            "Snapshots of engine states written to the store, by game kind.",
            ["kind"],
            registry=r,
        )
        self.snapshots_rejected = Counter(
            "ludotheque_snapshots_rejected_total",
            "Stored snapshots ignored, by game kind and reason (corrupt, mismatch: they do not match "
            "their events; outdated: taken under other rules or another state encoding).",
            ["kind", "reason"],
            registry=r,
        )
        self.games_expired = Counter(
            "ludotheque_games_expired_total",
            "Games deleted, by kind and reason (finished, abandoned: their time to live ran out; "
            "deleted: by the admin).",
            ["kind", "reason"],
            registry=r,
        )
        self.game_exports_failed = Counter(
            "ludotheque_game_exports_failed_total",
            "Expiring games whose log could not be written to the export directory (they are kept, and tried again).",
            ["kind"],
            registry=r,
        )
        self.games_finished = Counter(
            "ludotheque_games_finished_total",
            "Games finished, by kind and outcome (won: someone won; lost: nobody did).",
            ["kind", "outcome"],
            registry=r,
        )

        self.joins = Counter(
            "ludotheque_joins_total",
            "Open seats taken by players (JoinGame), by kind.",
            ["kind"],
            registry=r,
        )
        self.leaves = Counter(
            "ludotheque_leaves_total",
            "Seats left before their game started (LeaveGame), by kind.",
            ["kind"],
            registry=r,
        )
        self.games_started = Counter(
            "ludotheque_games_started_total",
            "Games with open seats dealt, by kind and how (full: the last seat was taken; host: "
            "its host started it with bots).",
            ["kind", "how"],
            registry=r,
        )
        self.clock_timeouts = Counter(
            "ludotheque_clock_timeouts_total",
            "Turns whose time ran out, played by the seat's stand-in bot, by kind.",
            ["kind"],
            registry=r,
        )
        self.take_overs = Counter(
            "ludotheque_take_overs_total",
            "Seats a bot took over, by kind and reason (requested; missed_turns: the turn clock).",
            ["kind", "reason"],
            registry=r,
        )
        self.hand_backs = Counter(
            "ludotheque_hand_backs_total",
            "Seats handed back to their players after a take-over, by kind.",
            ["kind"],
            registry=r,
        )
        self.rematches = Counter(
            "ludotheque_rematches_total",
            "Rematches dealt (PlayAgain), by kind.",
            ["kind"],
            registry=r,
        )
        self.online_sessions = Gauge(
            "ludotheque_online_sessions",
            "Play sessions of a seat open in this process (what makes a seat online).",
            registry=r,
        )

    def labelled(self, metric: MetricWrapperBase, *values: str) -> Any:
        """`metric.labels(*values)`, remembered: labels() validates and locks on every
        call, which the hot path (every RPC, every command) need not pay."""
        key = (id(metric), values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def observe_delivery(self, recorded_at_ms: int, since_ms: float) -> None:
        """A live event handed to a follower: the time since it was recorded (events
        recorded before the follower subscribed are history, not lag)."""
        if recorded_at_ms >= since_ms:
            self.stream_lag.observe(max(time.time() * 1000 - recorded_at_ms, 0.0) / 1000)

    def game_finished(self, kind: str, won: bool) -> None:
        self.labelled(self.games_finished, kind, "won" if won else "lost").inc()


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


class InstrumentedStore:
    """An EventStore that times every operation of the store it wraps."""

    def __init__(self, store: EventStore, metrics: Metrics) -> None:
        self.inner = store
        self._metrics = metrics
        self._shards: set[str] = set()  # the shards the gauges have a value for
        self.coordination = InstrumentedCoordination(store.coordination, metrics)

    async def create(
        self,
        game_id: str,
        kind: str,
        status: str,
        record: bytes,
        summary: bytes,
        events: Sequence[bytes],
        now_ms: int,
        keep: Keep = KEEP_FOREVER,
        *,
        listed: bool = True,
    ) -> None:
        with _Timing(self._metrics, "create"):
            await self.inner.create(game_id, kind, status, record, summary, events, now_ms, keep, listed=listed)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        command_id: str,
        fingerprint: bytes,
        status: str,
        summary: bytes,
        now_ms: int,
        keep: Keep = KEEP_FOREVER,
        *,
        after: bytes = b"",
        counters_revision: int | None = None,
    ) -> AppendResult:
        with _Timing(self._metrics, "append"):
            return await self.inner.append(
                game_id,
                expected_version,
                events,
                command_id,
                fingerprint,
                status,
                summary,
                now_ms,
                keep,
                after=after,
                counters_revision=counters_revision,
            )

    async def find_command(self, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
        with _Timing(self._metrics, "find_command"):
            return await self.inner.find_command(game_id, command_id, fingerprint)

    async def info(self, game_id: str) -> GameInfo:
        with _Timing(self._metrics, "info"):
            return await self.inner.info(game_id)

    async def read(
        self, game_id: str, from_version: int, to_version: int | None = None, *, counters_revision: int | None = None
    ) -> list[StoredEvent]:
        with _Timing(self._metrics, "read"):
            return await self.inner.read(game_id, from_version, to_version, counters_revision=counters_revision)

    async def bump(self, game_id: str, name: str) -> int:
        with _Timing(self._metrics, "bump"):
            return await self.inner.bump(game_id, name)

    async def list_games(
        self, kind: str, status: str, limit: int, cursor: str, *, listed_only: bool = False
    ) -> GamePage:
        with _Timing(self._metrics, "list_games"):
            return await self.inner.list_games(kind, status, limit, cursor, listed_only=listed_only)

    async def admit(self, key: str, member: str, limit: int, now_ms: int, ttl_ms: int | None = None) -> Admission:
        with _Timing(self._metrics, "admit"):
            return await self.inner.admit(key, member, limit, now_ms, ttl_ms)

    async def release(self, key: str, member: str) -> None:
        with _Timing(self._metrics, "release"):
            await self.inner.release(key, member)

    async def members(self, key: str, now_ms: int) -> list[str]:
        with _Timing(self._metrics, "members"):
            return await self.inner.members(key, now_ms)

    async def put_snapshots(self, game_id: str, snapshots: Sequence[StoredSnapshot]) -> None:
        with _Timing(self._metrics, "put_snapshots"):
            await self.inner.put_snapshots(game_id, snapshots)

    async def snapshot(self, game_id: str, at_most: int | None = None) -> StoredSnapshot | None:
        with _Timing(self._metrics, "snapshot"):
            return await self.inner.snapshot(game_id, at_most)

    async def due_games(self, now_ms: int, limit: int) -> list[str]:
        with _Timing(self._metrics, "due_games"):
            return await self.inner.due_games(now_ms, limit)

    async def keep(self, game_id: str, keep: Keep) -> None:
        with _Timing(self._metrics, "keep"):
            await self.inner.keep(game_id, keep)

    async def claim(self, game_id: str, owner: str, until_ms: int, now_ms: int) -> bool:
        with _Timing(self._metrics, "claim"):
            return await self.inner.claim(game_id, owner, until_ms, now_ms)

    async def delete(self, game_id: str, version: int | None = None) -> bool:
        with _Timing(self._metrics, "delete"):
            return await self.inner.delete(game_id, version)

    async def forget(self, game_id: str) -> None:
        with _Timing(self._metrics, "forget"):
            await self.inner.forget(game_id)

    def subscribe(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        return self.inner.subscribe(game_id, from_version)

    def end_subscriptions(self) -> None:
        self.inner.end_subscriptions()

    async def mark_once(self, key: str, ttl_ms: int) -> bool:
        with _Timing(self._metrics, "mark_once"):
            return await self.inner.mark_once(key, ttl_ms)

    async def ping(self) -> None:
        with _Timing(self._metrics, "ping"):
            await self.inner.ping()

    async def health(self) -> StoreHealth:
        """The store's health, also exported as gauges (shards gone since are dropped); a
        shard that could not be written counts as a failed operation, `health`, as any
        other (readiness checks every second: the errors show without traffic too)."""
        health = await self.inner.health()
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

    async def close(self) -> None:
        await self.inner.close()


class InstrumentedCoordination:
    """The coordination of an InstrumentedStore, each operation timed."""

    def __init__(self, inner: Coordination, metrics: Metrics) -> None:
        self.inner = inner
        self._metrics = metrics

    async def claim(self, key: str, value: str, ttl_ms: int) -> str:
        with _Timing(self._metrics, "claim"):
            return await self.inner.claim(key, value, ttl_ms)

    async def lookup(self, key: str) -> str | None:
        with _Timing(self._metrics, "lookup"):
            return await self.inner.lookup(key)

    async def put_lease(self, scope: str, holder: str, now_ms: int, ttl_ms: int) -> bool:
        with _Timing(self._metrics, "put_lease"):
            return await self.inner.put_lease(scope, holder, now_ms, ttl_ms)

    async def drop_lease(self, scope: str, holder: str) -> None:
        with _Timing(self._metrics, "drop_lease"):
            await self.inner.drop_lease(scope, holder)

    async def leases(self, scope: str, now_ms: int) -> dict[str, int]:
        with _Timing(self._metrics, "leases"):
            return await self.inner.leases(scope, now_ms)

    async def notify(self, topic: str) -> None:
        with _Timing(self._metrics, "notify"):
            await self.inner.notify(topic)

    def notices(self) -> AsyncIterator[str]:
        return self.inner.notices()

    async def schedule(self, key: str, due_ms: int) -> None:
        with _Timing(self._metrics, "schedule"):
            await self.inner.schedule(key, due_ms)

    async def unschedule(self, key: str) -> None:
        with _Timing(self._metrics, "unschedule"):
            await self.inner.unschedule(key)

    async def due(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        with _Timing(self._metrics, "due"):
            return await self.inner.due(now_ms, limit)
