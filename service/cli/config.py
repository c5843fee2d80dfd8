"""Server configuration: every setting is a flag of `ludotheque serve` and a
LUDOTHEQUE_* environment variable (the flag wins). One table, so the two never drift."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class Setting:
    name: str  # the attribute; flag --name-with-dashes; env LUDOTHEQUE_NAME
    type: type
    default: object
    help: str
    secret: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return "LUDOTHEQUE_" + self.name.upper()


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "store",
        str,
        "memory",
        "event store: 'memory' (embedded, lost on exit), 'redis://host:port/db' (one Redis) "
        "or 'redis+cluster://host:port' (a Redis Cluster, any of its nodes)",
    ),
    Setting(
        "redis_wait_replicas",
        int,
        0,
        "Redis store: replicas that must have a move (WAIT) before it is acknowledged; "
        "0: the primary's own durability (AOF appendfsync always) only",
    ),
    Setting("redis_wait_timeout", float, 1.0, "Redis store: seconds to wait for those replicas, else UNAVAILABLE"),
    Setting("host", str, "0.0.0.0", "address to listen on"),
    Setting("grpc_port", int, 50051, "gRPC port (0: any free port)"),
    Setting(
        "http_port", int, 8080, "HTTP port: REST, server-sent events, /metrics, /healthz, /readyz (0: any free port)"
    ),
    Setting("cors_origins", str, "", "browser origins allowed to call the HTTP API, comma-separated ('*': any)"),
    Setting(
        "secret",
        str,
        "",
        "secret that signs seat tokens (at least 16 bytes); every process of one "
        "deployment needs the same. Empty: a random one, so tokens die with the process",
        secret=True,
    ),
    Setting("admin_token", str, "", "token that sees and may do everything; empty: no admin", secret=True),
    Setting("cache_size", int, 10_000, "live games kept in memory"),
    Setting(
        "presence_ttl",
        float,
        15.0,
        "seconds a seat stays online after its process last renewed its Play session's presence "
        "(renewed every third of it): a process that dies takes its seats offline within this",
    ),
    Setting(
        "clock_interval",
        float,
        1.0,
        "seconds between two looks at the turn clocks' schedule: a timeout is played at most this late",
    ),
    Setting("max_message_bytes", int, 1 << 20, "largest request accepted"),
    Setting(
        "shutdown_grace", float, 10.0, "seconds to finish calls in flight on SIGTERM (live event streams end at once)"
    ),
    Setting("max_connection_age", float, 600.0, "seconds before a client is asked to reconnect (load balancing)"),
    Setting("log_level", str, "info", "debug, info, warning or error"),
    Setting(
        "workers",
        int,
        1,
        "server processes sharing the two ports (SO_REUSEPORT), supervised by this one; "
        "more than 1 needs a shared store (Redis)",
    ),
)


@dataclass(frozen=True, slots=True)
class Config:
    store: str
    redis_wait_replicas: int
    redis_wait_timeout: float
    host: str
    grpc_port: int
    http_port: int
    cors_origins: str
    secret: str
    admin_token: str
    cache_size: int
    presence_ttl: float
    clock_interval: float
    max_message_bytes: int
    shutdown_grace: float
    max_connection_age: float
    log_level: str
    workers: int

    def __repr__(self) -> str:
        # Never print secrets, not even in a debug log.
        shown = {
            s.name: ("<set>" if getattr(self, s.name) else "<empty>") if s.secret else getattr(self, s.name)
            for s in SETTINGS
        }
        return f"Config({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


assert [s.name for s in SETTINGS] == [f.name for f in fields(Config)]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for setting in SETTINGS:
        parser.add_argument(
            setting.flag,
            dest=setting.name,
            type=setting.type,
            default=None,
            help=f"{setting.help} [env {setting.env}, default {setting.default!r}]",
        )


def from_arguments(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> Config:
    """Flags first, then environment variables, then defaults."""
    values: dict[str, object] = {}
    for setting in SETTINGS:
        value = getattr(args, setting.name, None)
        if value is None and setting.env in environ:
            try:
                value = setting.type(environ[setting.env])
            except ValueError as error:
                raise SystemExit(f"{setting.env}: {error}") from None
        values[setting.name] = setting.default if value is None else value
    return Config(**values)  # type: ignore[arg-type]
