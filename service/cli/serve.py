"""The server process: the event store, GameApp, and the gRPC server with health,
reflection and a graceful shutdown on SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import signal
from collections.abc import Callable
from dataclasses import dataclass, replace

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
from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.access.creators import CreationPolicy
from service.app.model.errors import ServiceError
from service.app.model.heavy_reads import share_the_gil
from service.app.observe.instrumented import instrumented
from service.app.observe.metrics import Metrics
from service.cli import collector, log_setup, telemetry
from service.cli.config import Config

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
        await asyncio.gather(self.server.stop(self.config.server.shutdown_grace), self.http.cleanup())
        if self.gate is not None:
            await self.gate.close()
        await self.reviews
        await self.app.stop()
        await self.app.drain()
        await self.app.store.close()


def token_secret(config: Config) -> bytes:
    if config.access.secret:
        return config.access.secret.encode()
    log.warning(
        "LUDOTHEQUE_SECRET is not set: seat tokens are signed with a random secret "
        "and stop working when this process exits"
    )
    return secrets.token_bytes(32)


def who_may_create(config: Config) -> CreationPolicy:
    """The creation policy of the configuration; a policy that cannot work stops the server."""
    try:
        return config.access.creation()
    except ValueError as error:
        raise SystemExit(f"ludotheque serve: {error}") from None


async def start(config: Config, *, reuse_port: bool = False) -> Running:
    """Starts the server. `reuse_port`: one of several worker processes listening on
    the same ports (SO_REUSEPORT: the kernel spreads connections between them)."""
    if config.server.example_games:  # before anything reads the kinds served
        registry.serve_examples()
    share_the_gil()  # large bodies are parsed in a thread: the event loop gets the GIL back soon
    metrics = Metrics()
    app = build_app(config, metrics)
    await app.start()
    connections = connection_limits(config)
    gate = GrpcGate(connections, metrics, max_resets=config.grpc.max_resets) if config.grpc.gate else None
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
        per_client=config.connections.per_client,
        total=config.connections.total,
        descriptors=descriptors,
        addresses=config.access.addresses(),
    )
    log.debug("connections: %d file descriptors, %d for clients", descriptors, limits.budget)
    return limits


def build_app(config: Config, metrics: Metrics) -> GameApp:
    """The use cases, on the configured store, with the configured settings."""
    store = instrumented(config.store.open(), metrics)
    access = config.access
    previous = (access.previous_secret.encode(),) if access.previous_secret else ()
    tokens = TokenAuthority(token_secret(config), access.admin_token, previous_secrets=previous)
    return GameApp(store, tokens, config.app, metrics=metrics, creation=who_may_create(config))


def grpc_options(config: Config, reuse_port: bool, gated: bool) -> list[tuple[str, int]]:
    """grpcio's own limits. A connection's streams are capped (MAX_CONCURRENT_STREAMS):
    past it, and while its reset streams are still being let go of, grpc refuses new ones
    before any handler runs, so a rapid reset costs no Python work. A client pinging more
    than every 10 s without calls gets a GOAWAY (too_many_pings) after two strikes."""
    options = [
        ("grpc.max_receive_message_length", config.server.max_message_bytes),
        ("grpc.max_connection_age_ms", int(config.grpc.max_connection_age * 1000)),
        ("grpc.max_connection_age_grace_ms", int(config.server.shutdown_grace * 1000)),
        ("grpc.keepalive_time_ms", 60_000),
        ("grpc.keepalive_timeout_ms", 20_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.http2.max_ping_strikes", 2),
        ("grpc.max_concurrent_streams", config.grpc.max_concurrent_streams),
        ("grpc.so_reuseport", 1 if reuse_port and not gated else 0),
    ]
    if not gated and config.connections.total:  # the gate counts them itself
        options.append(("grpc.max_allowed_incoming_connections", config.connections.total))
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
    grpc_server.register(server, app, max_streams_per_connection=config.grpc.max_streams_per_connection, peers=peers)
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
    address = "127.0.0.1:0" if gate is not None else f"{config.server.host}:{config.grpc.port}"
    port = server.add_insecure_port(address)
    if port == 0:
        raise SystemExit(f"cannot listen on {address}")
    await server.start()
    if gate is not None:
        gate.upstream_port = port
        try:
            port = await gate.start(config.server.host, config.grpc.port, reuse_port=reuse_port)
        except OSError as error:
            raise SystemExit(f"cannot listen on {config.server.host}:{config.grpc.port}: {error}") from None
    return server, port, health_servicer, readiness


async def start_http(
    config: Config, app: GameApp, metrics: Metrics, reuse_port: bool, connections: Connections | None = None
) -> tuple[web.AppRunner, int]:
    """The HTTP port, listening: REST, Connect, server-sent events, WebSocket Play, the web app."""
    websockets = replace(config.websocket, max_message_bytes=config.server.max_message_bytes)
    web_app = build_http_app(
        app, metrics, config.http, max_body_bytes=config.server.max_message_bytes, websockets=websockets
    )
    return await serve_http(
        web_app,
        config.server.host,
        config.http,
        config.server.shutdown_grace,
        reuse_port=reuse_port,
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
        config.server.host,
        running.grpc_port,
        config.server.host,
        running.http_port,
        config.store.url.split("://")[0],
    )
    (announce or _print_ready)(json.dumps({"grpc_port": running.grpc_port, "http_port": running.http_port}))
    await stop.wait()
    log.info("shutting down: finishing calls in flight (at most %.0fs)", config.server.shutdown_grace)
    await running.stop()
    telemetry.shutdown()
    log.info("stopped")


def _print_ready(line: str) -> None:
    # One JSON line on stdout says the server is up and on which ports (tests and
    # scripts read it); logs go to stderr.
    print(line, flush=True)


def configure_logging(config: Config) -> None:
    """Logs as configured, never showing the secrets this process knows."""
    access = config.access
    log_setup.configure_logging(
        config.logs.log_level,
        config.logs.log_format,
        access_sample=config.logs.access_log_sample,
        secrets=(access.secret, access.previous_secret, access.admin_token, log_setup.store_password(config.store.url)),
    )
