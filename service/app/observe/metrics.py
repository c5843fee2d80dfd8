"""Prometheus metrics: what the service exports at /metrics, in one place.

Each server gets its own CollectorRegistry, so several apps in one process (tests)
never share counters. Names follow the Prometheus conventions (base units, _total
for counters); the gRPC ones use the names of the common gRPC server instrumentation
(grpc_server_*) so existing dashboards work."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector, disable_created_metrics
from prometheus_client.metrics import MetricWrapperBase

# No `*_created` series: each counter and histogram would export a second series with
# its creation time, which nobody graphs and every scrape pays for (process-wide: it
# applies to the metrics made after it, here all of ours).
disable_created_metrics()  # type: ignore[no-untyped-call]

# Latency buckets from 0.5 ms to 10 s: moves are fast, store round trips slower.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _Make:
    """Makes the metrics of one registry (latencies in LATENCY_BUCKETS)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._registry = registry

    def counter(self, name: str, documentation: str, *labels: str) -> Counter:
        return Counter(name, documentation, labels, registry=self._registry)

    def gauge(self, name: str, documentation: str, *labels: str) -> Gauge:
        return Gauge(name, documentation, labels, registry=self._registry)

    def histogram(self, name: str, documentation: str, *labels: str) -> Histogram:
        return Histogram(name, documentation, labels, buckets=LATENCY_BUCKETS, registry=self._registry)


class Metrics:
    """Every metric the service exports, by family, on one registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}
        # The process itself: CPU seconds, resident memory, open and maximum file descriptors.
        ProcessCollector(registry=self.registry)
        make = _Make(self.registry)
        self._transports(make)
        self._moves(make)
        self._store(make)
        self._followers(make)
        self._heavy(make)
        self._games(make)
        self._online(make)

    def _transports(self, make: _Make) -> None:
        """The RPCs and HTTP requests the transports serve."""
        self.grpc_started = make.counter(
            "grpc_server_started_total", "RPCs started on the server.", "grpc_type", "grpc_service", "grpc_method"
        )
        self.grpc_handled = make.counter(
            "grpc_server_handled_total",
            "RPCs completed on the server, whatever their status.",
            "grpc_type",
            "grpc_service",
            "grpc_method",
            "grpc_code",
        )
        self.grpc_seconds = make.histogram(
            "grpc_server_handling_seconds",
            "Time to handle an RPC (a stream: until it ends).",
            "grpc_type",
            "grpc_service",
            "grpc_method",
        )
        self.http_requests = make.counter(
            "ludotheque_http_requests_total",
            "HTTP requests, by route template and status.",
            "method",
            "route",
            "status",
        )
        self.http_seconds = make.histogram(
            "ludotheque_http_request_duration_seconds",
            "Time to answer an HTTP request (a server-sent event stream: until it ends).",
            "method",
            "route",
        )
        self.websocket_closes = make.counter(
            "ludotheque_websocket_closes_total",
            "Play sessions over WebSocket ended by the server, by the close code it sent "
            "(1000: normal; 4000 + a gRPC status code: an error, e.g. 4008 a client reading too slowly).",
            "code",
        )
        self.connections_refused = make.counter(
            "ludotheque_connections_refused_total",
            "Connections refused on arrival, by port (http, grpc) and limit (per_client: too many from one "
            "address; total: as many as the server holds).",
            "port",
            "reason",
        )
        self.connections_cut = make.counter(
            "ludotheque_connections_cut_total",
            "gRPC connections the server closed with a GOAWAY for abuse, by what they did "
            "(resets: streams reset or refused faster than --grpc-max-resets).",
            "reason",
        )
        self.receipt_waits = make.counter(
            "ludotheque_grpc_receipt_waits_total",
            "Times the gRPC gate held the server back from a client that had not said it read "
            "what it was sent (its PING ACK: a read receipt).",
        )

    def _moves(self, make: _Make) -> None:
        """Commands and how their appends went."""
        self.commands = make.counter(
            "ludotheque_commands_total",
            "Commands submitted, by game kind, command and outcome "
            "(accepted, replayed, illegal, invalid, stale, unauthorised, unavailable, error).",
            "kind",
            "command",
            "outcome",
        )
        self.command_seconds = make.histogram(
            "ludotheque_command_duration_seconds",
            "Time to decide, store and answer an accepted command (bot moves included).",
            "kind",
        )
        self.append_conflicts = make.counter(
            "ludotheque_append_conflicts_total",
            "Appends refused because another process moved the game first (then retried).",
            "kind",
        )
        self.conflict_storms = make.counter(
            "ludotheque_conflict_storms_total",
            "Commands and table changes that gave up (ABORTED) after conflicting on every retry: a game moved by "
            "many writers at once.",
            "kind",
        )
        self.idempotent_replays = make.counter(
            "ludotheque_idempotent_replays_total",
            "Commands whose command_id had already been applied: answered, not replayed.",
            "kind",
        )

    def _store(self, make: _Make) -> None:
        """The event store: its operations, its shards, what it lost, its snapshots."""
        self.store_seconds = make.histogram(
            "ludotheque_store_operation_duration_seconds", "Time of event store operations.", "operation"
        )
        self.store_errors = make.counter(
            "ludotheque_store_errors_total",
            "Event store operations that failed because the store was unreachable.",
            "operation",
        )
        self.store_behind = make.counter(
            "ludotheque_store_behind_total",
            "Times the event store was found behind a cached game or a live stream (it no longer held "
            "versions this server had been given: a Redis failover lost them).",
            "kind",
        )
        self.unproven_claims = make.counter(
            "ludotheque_unproven_claims_total",
            "Callers' claims to know a version past the store's without a valid receipt: not believed "
            "(a client without receipts, or a forged claim).",
        )
        self.history_losses = make.counter(
            "ludotheque_history_losses_total",
            "Losses of acknowledged versions recorded in a game's history, by whether their numbers had "
            "been used again (reused: the history forked).",
            "kind",
            "reused",
        )
        self.unrecorded_losses = make.gauge(
            "ludotheque_history_losses_unrecorded",
            "Games whose event store this server found behind what it had acknowledged, the loss not "
            "recorded yet (their writes are refused until it is).",
        )
        self.redis_errors = make.counter(
            "ludotheque_redis_errors_total",
            "Failures talking to Redis, by reason (connection, timeout, cluster_down, moved, readonly, "
            "loading, replicas, out_of_memory, refused, client_bug...).",
            "reason",
        )
        self.shard_writable = make.gauge(
            "ludotheque_store_shard_writable",
            "1 when a write (and WAIT, when writes wait for replicas) reached the store's shard (a Redis "
            "master) at the last readiness check, else 0.",
            "shard",
        )
        self.memory_used = make.gauge(
            "ludotheque_store_memory_used_ratio",
            "Memory a store shard uses, as a fraction of its limit (Redis used_memory / maxmemory; 0: no limit).",
            "shard",
        )
        self.snapshots_written = make.counter(
            "ludotheque_snapshots_written_total",
            "Snapshots of engine states written to the store, by game kind.",
            "kind",
        )
        self.snapshots_rejected = make.counter(
            "ludotheque_snapshots_rejected_total",
            "Stored snapshots ignored, by game kind and reason (corrupt, mismatch: they do not match "
            "their events; outdated: taken under other rules or another state encoding).",
            "kind",
            "reason",
        )

    def _heavy(self, make: _Make) -> None:
        """The heavy reads' worker processes (model/heavy_reads.py)."""
        self.heavy_reads = make.counter(
            "ludotheque_heavy_reads_total",
            "Heavy reads (ExportGame, ListEvents, ReplayGame, ReplayLog), large answers written as JSON "
            "('<RPC> as JSON') and searching bots' moves ('bot <name>') asked of the worker processes, by read "
            "and outcome (served; refused_client: the caller's budget; refused_total: the process's; "
            "failed: a worker died).",
            "read",
            "outcome",
        )
        self.heavy_in_flight = make.gauge(
            "ludotheque_heavy_reads_in_flight", "Heavy reads running or waiting for a worker process right now."
        )
        self.exports_kept = make.counter(
            "ludotheque_export_cache_hits_total", "Exports of finished games served from those kept, not made again."
        )

    def _followers(self, make: _Make) -> None:
        """Live streams and the games cached for them and for moves."""
        self.subscriptions = make.gauge(
            "ludotheque_active_subscriptions",
            "Event streams open right now (gRPC StreamEvents and server-sent events).",
        )
        self.stream_lag = make.histogram(
            "ludotheque_stream_delivery_lag_seconds",
            "Time from a move's events being recorded to their delivery to a follower (live events only; "
            "the recording pod's clock against the delivering pod's).",
        )
        self.cached_games = make.gauge("ludotheque_cached_games", "Games whose state this process keeps in memory.")

    def _games(self, make: _Make) -> None:
        """Games created, finished and expired."""
        self.games_created = make.counter("ludotheque_games_created_total", "Games created, by kind.", "kind")
        self.games_finished = make.counter(
            "ludotheque_games_finished_total",
            "Games finished, by kind and outcome (won: someone won; lost: nobody did).",
            "kind",
            "outcome",
        )
        self.games_expired = make.counter(
            "ludotheque_games_expired_total",
            "Games deleted, by kind and reason (finished, abandoned: their time to live ran out; "
            "deleted: by the admin).",
            "kind",
            "reason",
        )
        self.game_exports_failed = make.counter(
            "ludotheque_game_exports_failed_total",
            "Expiring games whose log could not be written to the export directory (they are kept, and tried again).",
            "kind",
        )

    def _online(self, make: _Make) -> None:
        """Playing online: seats taken and left, games started, clocks, take-overs, rematches."""
        self.joins = make.counter("ludotheque_joins_total", "Open seats taken by players (JoinGame), by kind.", "kind")
        self.leaves = make.counter(
            "ludotheque_leaves_total", "Seats left before their game started (LeaveGame), by kind.", "kind"
        )
        self.games_started = make.counter(
            "ludotheque_games_started_total",
            "Games with open seats dealt, by kind and how (full: the last seat was taken; host: "
            "its host started it with bots; quick_match_bots: a quick match's bot deadline passed).",
            "kind",
            "how",
        )
        self.clock_timeouts = make.counter(
            "ludotheque_clock_timeouts_total",
            "Turns whose time ran out, played by the seat's stand-in bot, by kind.",
            "kind",
        )
        self.take_overs = make.counter(
            "ludotheque_take_overs_total",
            "Seats a bot took over, by kind and reason (requested; missed_turns: the turn clock).",
            "kind",
            "reason",
        )
        self.hand_backs = make.counter(
            "ludotheque_hand_backs_total", "Seats handed back to their players after a take-over, by kind.", "kind"
        )
        self.quick_matches = make.counter(
            "ludotheque_quick_matches_total",
            "Players seated by QuickMatch, by kind and how (created: the call created the game; joined).",
            "kind",
            "how",
        )
        self.rematches = make.counter("ludotheque_rematches_total", "Rematches dealt (PlayAgain), by kind.", "kind")
        self.online_sessions = make.gauge(
            "ludotheque_online_sessions", "Play sessions of a seat open in this process (what makes a seat online)."
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
