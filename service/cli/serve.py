"""The server process: the event store, GameApp, and the gRPC server with health,
reflection and a graceful shutdown on SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import signal
from collections.abc import Callable
from dataclasses import dataclass

import grpc
from aiohttp import web
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from engines import registry
from service.api import diagnostics, grpc_server
from service.api.connections import Connections, descriptor_limit
from service.api.grpc_gate import GrpcGate
from service.api.grpc_metrics import MetricsInterceptor
from service.api.grpc_observe import ClosingStreams, ObservingInterceptor
from service.api.http_server import build_http_app, serve_http
from service.api.rpcs import SERVICE
from service.api.websocket import WebSocketSettings
from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.access.creators import CreationPolicy, creation_policy
from service.app.access.limits import CreationLimits
from service.app.access.origins import ClientAddresses, parse_networks
from service.app.game_app import Settings
from service.app.keeping.retention import RetentionPolicy
from service.app.model.errors import ServiceError
from service.app.model.heavy_reads import share_the_gil
from service.app.observe.instrumented import instrumented
from service.app.observe.metrics import Metrics
from service.cli import collector, log_setup, telemetry
from service.cli.config import Config, event_limits
from service.store import open_store

log = logging.getLogger("ludotheque")

SERVICE_NAME = SERVICE.full_name
# The store is probed every second (readiness answers from the last probe): with the
# store's one-second timeout, a Redis that stops answering makes the server NOT_SERVING
# within about two seconds.
READINESS_INTERVAL = 1.0


@dataclass(slots=True)
class Running:
    """A started server: its bound ports and how to stop it."""

    grpc_port: int
    http_port: int
    app: GameApp
    server: grpc.aio.Server
    http: web.AppRunner
    health: health.aio.HealthServicer
    watcher: asyncio.Task[None]
    config: Config
    stopping: asyncio.Event
    reviews: asyncio.Task[None]  # the retention reviews (service/app/keeping/retention.py)
    gate: GrpcGate | None  # the gRPC port's front door (service/api/grpc_gate.py), unless --no-grpc-gate

    async def stop(self) -> None:
        """Stops taking calls, ends the live streams at once (UNAVAILABLE: their
        clients follow the game again elsewhere, from the last version they got; a
        stream left to the grace's end would be cut without a status), lets the
        calls in flight finish, then closes the store."""
        self.watcher.cancel()
        self.stopping.set()
        await self.health.enter_graceful_shutdown()
        self.app.store.end_subscriptions()
        if self.gate is not None:
            self.gate.stop_accepting()
        await asyncio.gather(self.server.stop(self.config.shutdown_grace), self.http.cleanup())
        if self.gate is not None:
            await self.gate.close()
        await self.reviews
        await self.app.stop()
        await self.app.drain()
        await self.app.store.close()


def token_secret(config: Config) -> bytes:
    if config.secret:
        return config.secret.encode()
    log.warning(
        "LUDOTHEQUE_SECRET is not set: seat tokens are signed with a random secret "
        "and stop working when this process exits"
    )
    return secrets.token_bytes(32)


def who_may_create(config: Config) -> CreationPolicy:
    """The creation policy of the configuration; a policy that cannot work stops the server."""
    try:
        addresses = ClientAddresses(parse_networks(config.trusted_proxies))
        return creation_policy(
            config.create_policy,
            addresses=addresses,
            api_keys_file=config.api_keys_file,
            jwks=config.jwks,
            issuer=config.jwt_issuer,
            audience=config.jwt_audience,
        )
    except ValueError as error:
        raise SystemExit(f"ludotheque serve: {error}") from None


async def start(config: Config, *, reuse_port: bool = False) -> Running:
    """Starts the server. `reuse_port`: one of several worker processes listening on
    the same ports (SO_REUSEPORT: the kernel spreads connections between them)."""
    if config.example_games:  # before anything reads the kinds served
        registry.serve_examples()
    check_limits(config)
    share_the_gil()  # heavy reads fold in a thread: the event loop gets the GIL back soon
    metrics = Metrics()
    app = build_app(config, metrics)
    await app.start()
    connections = connection_limits(config)
    gate = GrpcGate(connections, metrics, max_resets=config.grpc_max_resets) if config.grpc_gate else None
    server, port, health_servicer, readiness = await start_grpc(config, app, metrics, reuse_port, gate)
    runner, http_port = await start_http(config, app, metrics, reuse_port, connections)
    watcher = asyncio.create_task(_watch_readiness(app, health_servicer, readiness))
    stopping = asyncio.Event()
    reviews = asyncio.create_task(app.retention.run_until(stopping), name="retention")
    return Running(port, http_port, app, server, runner, health_servicer, watcher, config, stopping, reviews, gate)


def connection_limits(config: Config) -> Connections:
    """The limits on both ports' connections, within this process's file descriptors."""
    descriptors = descriptor_limit()
    limits = Connections(
        per_client=config.max_connections_per_client,
        total=config.max_connections,
        descriptors=descriptors,
        addresses=ClientAddresses(parse_networks(config.trusted_proxies)),
    )
    log.debug("connections: %d file descriptors, %d for clients", descriptors, limits.budget)
    return limits


def check_limits(config: Config) -> None:
    """Refuses, before anything starts, limits that make no sense."""
    if config.snapshot_interval < 0:
        raise SystemExit("--snapshot-interval: a number of events, 0 for no snapshots")
    if config.max_streams_per_connection < 1 or config.max_followers_per_game < 0:
        raise SystemExit("--max-streams-per-connection is at least 1, --max-followers-per-game at least 0")
    if min(config.http_header_timeout, config.http_idle_timeout, config.http_body_timeout) < 0:
        raise SystemExit("--http-header-timeout, --http-idle-timeout and --http-body-timeout are seconds (0: none)")
    if min(config.max_connections, config.max_connections_per_client, config.grpc_max_resets) < 0:
        raise SystemExit("--max-connections, --max-connections-per-client and --grpc-max-resets are counts (0: none)")
    if config.grpc_max_concurrent_streams <= config.max_streams_per_connection:
        raise SystemExit(
            "--grpc-max-concurrent-streams must be more than --max-streams-per-connection "
            "(a connection's live streams, and room for its other calls)"
        )


def build_app(config: Config, metrics: Metrics) -> GameApp:
    """The use cases, on the configured store, with the configured settings."""
    store = instrumented(
        open_store(
            config.store,
            redis_wait_replicas=config.redis_wait_replicas,
            redis_wait_timeout=config.redis_wait_timeout,
            redis_timeout=config.redis_timeout,
        ),
        metrics,
    )
    previous = (config.previous_secret.encode(),) if config.previous_secret else ()
    tokens = TokenAuthority(token_secret(config), config.admin_token, previous_secrets=previous)
    try:
        retention = RetentionPolicy(
            config.finished_game_ttl, config.abandoned_game_ttl, config.expired_games_dir, config.retention_interval
        )
    except ValueError as error:
        raise SystemExit(f"retention: {error}") from None
    settings = Settings(
        cache_size=config.cache_size,
        limits=CreationLimits(config.create_rate, config.live_games, config.bot_game_rate, config.join_code_rate),
        memory_threshold=config.redis_memory_threshold,
        event_limits=event_limits(config),
        snapshot_interval=config.snapshot_interval,
        retention=retention,
        max_followers=config.max_followers_per_game,
        stream_ticket_ttl=config.stream_ticket_ttl,
        play_join_timeout=config.play_join_timeout,
        presence_ttl=config.presence_ttl,
        clock_interval=config.clock_interval,
    )
    return GameApp(store, tokens, settings, metrics=metrics, creation=who_may_create(config))


def grpc_options(config: Config, reuse_port: bool, gated: bool) -> list[tuple[str, int]]:
    """grpcio's own limits. A connection's streams are capped (MAX_CONCURRENT_STREAMS):
    past it, and while its reset streams are still being let go of, grpc refuses new ones
    before any handler runs, so a rapid reset costs no Python work. A client pinging more
    than every 10 s without calls gets a GOAWAY (too_many_pings) after two strikes."""
    options = [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.max_connection_age_ms", int(config.max_connection_age * 1000)),
        ("grpc.max_connection_age_grace_ms", int(config.shutdown_grace * 1000)),
        ("grpc.keepalive_time_ms", 60_000),
        ("grpc.keepalive_timeout_ms", 20_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.http2.max_ping_strikes", 2),
        ("grpc.max_concurrent_streams", config.grpc_max_concurrent_streams),
        ("grpc.so_reuseport", 1 if reuse_port and not gated else 0),
    ]
    if not gated and config.max_connections:  # the gate counts them itself
        options.append(("grpc.max_allowed_incoming_connections", config.max_connections))
    return options


async def start_grpc(
    config: Config, app: GameApp, metrics: Metrics, reuse_port: bool, gate: GrpcGate | None = None
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer, health_pb2.HealthCheckResponse.ServingStatus.ValueType]:
    """The gRPC server, listening (behind `gate` when there is one): the service,
    diagnostics, health and reflection."""
    server = grpc.aio.server(
        interceptors=[
            ClosingStreams(),
            *telemetry.grpc_interceptors(),
            ObservingInterceptor(),
            MetricsInterceptor(metrics),
        ],
        options=grpc_options(config, reuse_port, gate is not None),
    )
    peers = gate.peer_of if gate is not None else None
    grpc_server.register(server, app, max_streams_per_connection=config.max_streams_per_connection, peers=peers)
    diagnostics.register(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, diagnostics.SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    # Health answers from the first call: a store that is down (Redis not up yet)
    # makes the server start NOT_SERVING rather than fail to start.
    readiness = await _readiness(app)
    await _set_health(health_servicer, readiness)
    address = "127.0.0.1:0" if gate is not None else f"{config.host}:{config.grpc_port}"
    port = server.add_insecure_port(address)
    if port == 0:
        raise SystemExit(f"cannot listen on {address}")
    await server.start()
    if gate is not None:
        gate.upstream_port = port
        try:
            port = await gate.start(config.host, config.grpc_port, reuse_port=reuse_port)
        except OSError as error:
            raise SystemExit(f"cannot listen on {config.host}:{config.grpc_port}: {error}") from None
    return server, port, health_servicer, readiness


async def start_http(
    config: Config, app: GameApp, metrics: Metrics, reuse_port: bool, connections: Connections | None = None
) -> tuple[web.AppRunner, int]:
    """The HTTP port, listening: REST, Connect, server-sent events, WebSocket Play, the web app."""
    origins = [origin.strip() for origin in config.cors_origins.split(",") if origin.strip()]
    websockets = WebSocketSettings(
        heartbeat=config.websocket_heartbeat,
        send_timeout=config.websocket_send_timeout,
        max_message_bytes=config.max_message_bytes,
    )
    web_app = build_http_app(
        app,
        metrics,
        max_body_bytes=config.max_message_bytes,
        cors_origins=origins,
        serve_web=config.web,
        body_idle_timeout=config.http_idle_timeout,
        body_timeout=config.http_body_timeout,
        websockets=websockets,
        public_origin=config.public_origin,
    )
    return await serve_http(
        web_app,
        config.host,
        config.http_port,
        config.shutdown_grace,
        reuse_port=reuse_port,
        header_timeout=config.http_header_timeout,
        idle_timeout=config.http_idle_timeout,
        connections=connections,
    )


async def _readiness(app: GameApp) -> health_pb2.HealthCheckResponse.ServingStatus.ValueType:
    try:
        await app.ready()
    except ServiceError:
        return health_pb2.HealthCheckResponse.NOT_SERVING
    except Exception:  # a check that cannot tell says not ready (and the watcher lives on)
        log.exception("readiness: the check failed")
        app.unready_reason = "the readiness check failed"
        return health_pb2.HealthCheckResponse.NOT_SERVING
    return health_pb2.HealthCheckResponse.SERVING


async def _set_health(
    health_servicer: health.aio.HealthServicer, status: health_pb2.HealthCheckResponse.ServingStatus.ValueType
) -> None:
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, status)


async def _watch_readiness(
    app: GameApp,
    health_servicer: health.aio.HealthServicer,
    last: health_pb2.HealthCheckResponse.ServingStatus.ValueType,
) -> None:
    """Probes the store every second, for readiness to answer from at once (gRPC health
    and /readyz): SERVING while some shard takes writes, NOT_SERVING while none does.
    A shard that cannot, while others can, is logged (its games answer UNAVAILABLE)."""
    degraded = app.degraded
    while True:
        await asyncio.sleep(READINESS_INTERVAL)
        await app.check_store()
        status = await _readiness(app)
        if status != last:
            serving = status == health_pb2.HealthCheckResponse.SERVING
            log.warning("readiness: %s", "serving" if serving else f"not serving: {app.unready_reason}")
            await _set_health(health_servicer, status)
            last = status
        if app.degraded != degraded:
            if app.degraded:
                log.warning("readiness: serving, but part of the store cannot take writes: %s", app.degraded)
            elif status == health_pb2.HealthCheckResponse.SERVING:
                log.warning("readiness: every shard of the store takes writes again")
            degraded = app.degraded


async def serve(config: Config, announce: Callable[[str], None] | None = None, *, reuse_port: bool = False) -> None:
    """Runs until SIGTERM or SIGINT, then drains calls in flight and stops."""
    collector.tune()
    telemetry.configure()
    running = await start(config, reuse_port=reuse_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    log.info(
        "serving gRPC on %s:%d and HTTP on %s:%d with the %s store",
        config.host,
        running.grpc_port,
        config.host,
        running.http_port,
        config.store.split("://")[0],
    )
    (announce or _print_ready)(json.dumps({"grpc_port": running.grpc_port, "http_port": running.http_port}))
    await stop.wait()
    log.info("shutting down: finishing calls in flight (at most %.0fs)", config.shutdown_grace)
    await running.stop()
    telemetry.shutdown()
    log.info("stopped")


def _print_ready(line: str) -> None:
    # One JSON line on stdout says the server is up and on which ports (tests and
    # scripts read it); logs go to stderr.
    print(line, flush=True)


def configure_logging(config: Config) -> None:
    """Logs as configured, never showing the secrets this process knows."""
    log_setup.configure_logging(
        config.log_level,
        config.log_format,
        access_sample=config.access_log_sample,
        secrets=(config.secret, config.previous_secret, config.admin_token, log_setup.store_password(config.store)),
    )
