"""Server configuration: every setting is a flag of `ludotheque serve` and a
LUDOTHEQUE_* environment variable (the flag wins). One table, so the two never drift."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from engines.registry import ENGINES


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
    Setting(
        "max_game_events",
        str,
        "",
        "the most events a game may have, per kind, e.g. 'pirates=20000,picnic=5000': a game that "
        "reaches its limit unfinished is stopped, won by nobody. Unnamed kinds: their default "
        "(mooki 1000, pirates 10000, picnic 2000)",
    ),
    Setting(
        "snapshot_interval",
        int,
        100,
        "events between two snapshots of a game's state, kept in the store: reading a game (a cold "
        "load, a replay at a version, a catch-up) folds at most about this many events; 0: no snapshots",
    ),
    Setting(
        "finished_game_ttl",
        float,
        30 * 24 * 3600.0,
        "seconds a finished game is kept after its last event, then deleted (exported first with "
        "--expired-games-dir); 0: forever",
    ),
    Setting(
        "abandoned_game_ttl",
        float,
        7 * 24 * 3600.0,
        "seconds an unfinished game may go without a move before it is deleted as abandoned (exported "
        "first with --expired-games-dir); 0: forever",
    ),
    Setting(
        "expired_games_dir",
        str,
        "",
        "a directory where each expiring game's complete log is written first (<game_id>.jsonl, as "
        "'ludotheque export' writes it); empty: no export",
    ),
    Setting("retention_interval", float, 60.0, "seconds between two reviews of the games due to expire"),
    Setting(
        "http_header_timeout",
        float,
        10.0,
        "HTTP port: seconds a request's head (request line and headers) may take to arrive once it "
        "starts, else the connection is closed",
    ),
    Setting(
        "http_idle_timeout",
        float,
        60.0,
        "HTTP port: seconds a connection may wait for a request (from its opening, or after a "
        "response) before it is closed, and a request body may go without a byte (then 408)",
    ),
    Setting(
        "max_streams_per_connection",
        int,
        100,
        "gRPC: live streams (StreamEvents, Play) one client connection may have open at once "
        "(HTTP/1.1 carries one request at a time)",
    ),
    Setting(
        "max_followers_per_game",
        int,
        1000,
        "spectators following one game live in one server process (StreamEvents, server-sent events, "
        "Connect); its seats and the admin are not counted, and always let in",
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
    max_message_bytes: int
    shutdown_grace: float
    max_connection_age: float
    log_level: str
    workers: int
    max_game_events: str
    snapshot_interval: int
    finished_game_ttl: float
    abandoned_game_ttl: float
    expired_games_dir: str
    retention_interval: float
    http_header_timeout: float
    http_idle_timeout: float
    max_streams_per_connection: int
    max_followers_per_game: int

    def __repr__(self) -> str:
        # Never print secrets, not even in a debug log.
        shown = {
            s.name: ("<set>" if getattr(self, s.name) else "<empty>") if s.secret else getattr(self, s.name)
            for s in SETTINGS
        }
        return f"Config({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


assert [s.name for s in SETTINGS] == [f.name for f in fields(Config)]


def event_limits(config: Config) -> dict[str, int]:
    """--max-game-events as {kind: limit}; raises SystemExit naming what is wrong."""
    limits: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in config.max_game_events.split(","))):
        kind, _, count = item.partition("=")
        kind, count = kind.strip(), count.strip()
        if kind not in ENGINES:
            raise SystemExit(f"--max-game-events: unknown kind {kind!r} (known: {', '.join(sorted(ENGINES))})")
        if not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise SystemExit(f"--max-game-events: {kind}'s limit must be a number of events, at least 1")
        limits[kind] = int(count)
    return limits


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
