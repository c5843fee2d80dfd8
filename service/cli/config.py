"""Server configuration: every setting is a flag of `ludotheque serve` and a
LUDOTHEQUE_* environment variable (the flag wins). One table, so the two never drift."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from urllib.parse import urlsplit

from engines.registry import ENGINES, GAMES

MIN_SECRET_BYTES = 32  # service/app/access/auth.py refuses shorter ones too
POLICIES = ("open", "api-keys", "jwt")


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
    Setting(
        "redis_timeout",
        float,
        1.0,
        "Redis store: seconds a Redis node has to answer before the call fails with UNAVAILABLE "
        "(and readiness fails while it does not answer)",
    ),
    Setting(
        "redis_memory_threshold",
        float,
        0.9,
        "Redis store: readiness fails while a Redis master uses more than this fraction of its maxmemory",
    ),
    Setting("host", str, "0.0.0.0", "address to listen on"),
    Setting("grpc_port", int, 50051, "gRPC port (0: any free port)"),
    Setting(
        "http_port", int, 8080, "HTTP port: REST, server-sent events, /metrics, /healthz, /readyz (0: any free port)"
    ),
    Setting("cors_origins", str, "", "browser origins allowed to call the HTTP API, comma-separated ('*': any)"),
    Setting(
        "public_origin",
        str,
        "",
        "the origin browsers reach this server at, e.g. https://ludo.example.org: the web app's "
        "Content-Security-Policy names its WebSocket, and WebSockets opened from it are let in",
    ),
    Setting(
        "secret",
        str,
        "",
        "secret that signs seat tokens (at least 32 bytes); every process of one "
        "deployment needs the same. Empty: a random one, so tokens die with the process",
        secret=True,
    ),
    Setting(
        "previous_secret",
        str,
        "",
        "while rotating the secret: the one it replaces (at least 32 bytes); tokens it signed still work",
        secret=True,
    ),
    Setting(
        "admin_token",
        str,
        "",
        "token that sees and may do everything (at least 32 bytes); empty: no admin",
        secret=True,
    ),
    Setting(
        "create_policy",
        str,
        "open",
        "who may create games: 'open' (anyone, counted by address), 'api-keys' (--api-keys-file) "
        "or 'jwt' (--jwks, --jwt-issuer, --jwt-audience); the admin token always may",
    ),
    Setting("api_keys_file", str, "", "api-keys policy: the file of '<name>:<sha256 hex of the key>' lines"),
    Setting("jwks", str, "", "jwt policy: the JSON Web Key Set, a file or an https:// URL (cached, refreshed)"),
    Setting("jwt_issuer", str, "", "jwt policy: the issuer (iss) tokens must come from"),
    Setting("jwt_audience", str, "", "jwt policy: the audience (aud) tokens must be for"),
    Setting("create_rate", int, 60, "games one creator may create per minute; 0: no limit"),
    Setting("live_games", int, 100, "unfinished games one creator may have at once; 0: no limit"),
    Setting("bot_game_rate", int, 0, "games of bots only one creator may create per minute; 0: only the admin"),
    Setting(
        "join_code_rate",
        int,
        30,
        "join codes one client address may try per minute (JoinGame by a code; an IPv6 client by its /64), "
        "whatever the creation policy; 0: no limit",
    ),
    Setting(
        "trusted_proxies",
        str,
        "",
        "addresses or CIDR ranges of the proxies whose X-Forwarded-For to believe, comma-separated; "
        "empty: none (a client is its peer address)",
    ),
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
    Setting(
        "play_join_timeout",
        float,
        10.0,
        "seconds a Play session (gRPC or WebSocket) has to send its join; then it ends with DEADLINE_EXCEEDED",
    ),
    Setting(
        "websocket_heartbeat",
        float,
        20.0,
        "seconds between the pings of a WebSocket; a client that does not answer within half of it is disconnected",
    ),
    Setting(
        "websocket_send_timeout",
        float,
        10.0,
        "seconds a WebSocket message, or a server-sent event or Connect stream's write, may wait for a client "
        "that does not read; then it is cut (a WebSocket with close code 4008)",
    ),
    Setting("stream_ticket_ttl", float, 60.0, "seconds a stream ticket (IssueStreamTicket) may be used in"),
    Setting("log_level", str, "info", "debug, info, warning or error"),
    Setting(
        "log_format",
        str,
        "auto",
        "json (one JSON object per line, for log collectors), text (for people), or auto: text when stderr is "
        "a terminal, else json",
    ),
    Setting(
        "access_log_sample",
        float,
        1.0,
        "share of successful requests written to the access log, from 0 to 1 (errors are always written)",
    ),
    Setting(
        "example_games",
        bool,
        False,
        "also serve the example games kept to teach how a game is added (docs/NEW_GAME.md): "
        f"{', '.join(sorted(k for k, g in GAMES.items() if g.example)) or 'none'}",
    ),
    Setting("web", bool, True, "serve the web app (lobby, play, debug panel) at / on the HTTP port"),
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
        f"({', '.join(f'{kind} {engine.default_event_limit}' for kind, engine in sorted(ENGINES.items()))})",
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
        "http_body_timeout",
        float,
        30.0,
        "HTTP port: seconds a request's whole body may take to arrive once its head is in, however "
        "steadily it trickles (then 408 and the connection is closed); 0: no limit",
    ),
    Setting(
        "max_connections",
        int,
        0,
        "connections one server process may hold at once on its two ports; past it a new one is refused "
        "(HTTP 503, gRPC a GOAWAY). 0: as many as the process's file descriptors allow (ulimit -n, less 256; "
        "a gRPC connection takes 3)",
    ),
    Setting(
        "max_connections_per_client",
        int,
        256,
        "connections one client address (an IPv6 client by its /64) may hold at once on a server process's two ports; "
        "a new one is refused (HTTP 429, gRPC a GOAWAY). Trusted proxies are held to the total only; 0: no limit",
    ),
    Setting(
        "grpc_max_concurrent_streams",
        int,
        200,
        "gRPC: streams (calls in flight) one connection may have at once (HTTP/2 MAX_CONCURRENT_STREAMS); "
        "past it grpc refuses the stream before any handler runs. More than --max-streams-per-connection",
    ),
    Setting(
        "grpc_max_resets",
        int,
        200,
        "gRPC: streams one client address (all its connections; a trusted proxy's connections each) may "
        "reset or have refused in a burst, coming back over 10 s; past it the connection gets a GOAWAY and "
        "is closed (HTTP/2 rapid reset). 0: no limit",
    ),
    Setting(
        "grpc_gate",
        bool,
        True,
        "pass gRPC connections through the server's gate (connection limits, rapid-reset cuts; the gRPC "
        "server listens on a loopback port behind it); --no-grpc-gate: clients reach grpc directly",
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
    redis_timeout: float
    redis_memory_threshold: float
    host: str
    grpc_port: int
    http_port: int
    cors_origins: str
    public_origin: str
    secret: str
    previous_secret: str
    admin_token: str
    create_policy: str
    api_keys_file: str
    jwks: str
    jwt_issuer: str
    jwt_audience: str
    create_rate: int
    live_games: int
    bot_game_rate: int
    join_code_rate: int
    trusted_proxies: str
    cache_size: int
    presence_ttl: float
    clock_interval: float
    max_message_bytes: int
    shutdown_grace: float
    max_connection_age: float
    play_join_timeout: float
    websocket_heartbeat: float
    websocket_send_timeout: float
    stream_ticket_ttl: float
    log_level: str
    log_format: str
    access_log_sample: float
    example_games: bool
    web: bool
    workers: int
    max_game_events: str
    snapshot_interval: int
    finished_game_ttl: float
    abandoned_game_ttl: float
    expired_games_dir: str
    retention_interval: float
    http_header_timeout: float
    http_idle_timeout: float
    http_body_timeout: float
    max_connections: int
    max_connections_per_client: int
    grpc_max_concurrent_streams: int
    grpc_max_resets: int
    grpc_gate: bool
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
        help = f"{setting.help} [env {setting.env}, default {setting.default!r}]"
        if setting.type is bool:  # --web / --no-web
            parser.add_argument(setting.flag, dest=setting.name, action=argparse.BooleanOptionalAction, help=help)
        else:
            parser.add_argument(setting.flag, dest=setting.name, type=setting.type, default=None, help=help)


TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


def _parse(setting: Setting, text: str) -> object:
    if setting.type is bool:
        word = text.strip().lower()
        if word not in TRUE_WORDS | FALSE_WORDS:
            raise ValueError(f"{text!r} is not a yes or no (true/false, 1/0, yes/no, on/off)")
        return word in TRUE_WORDS
    return setting.type(text)


def from_arguments(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> Config:
    """Flags first, then environment variables, then defaults."""
    values: dict[str, object] = {}
    for setting in SETTINGS:
        value = getattr(args, setting.name, None)
        if value is None and setting.env in environ:
            try:
                value = _parse(setting, environ[setting.env])
            except ValueError as error:
                raise SystemExit(f"{setting.env}: {error}") from None
        values[setting.name] = setting.default if value is None else value
    config = Config(**values)  # type: ignore[arg-type]
    problems = check(config)
    if problems:
        raise SystemExit("ludotheque serve: " + "; ".join(problems))
    return config


def _is_origin(text: str) -> bool:
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.path in ("", "/") and not parts.query


def check(config: Config) -> list[str]:
    """What is wrong with `config`, each said so that an operator knows what to fix."""
    problems = []
    for name, env in (("secret", "LUDOTHEQUE_SECRET"), ("previous_secret", "LUDOTHEQUE_PREVIOUS_SECRET")):
        value = getattr(config, name)
        if value and len(value.encode()) < MIN_SECRET_BYTES:
            problems.append(
                f"{env} is {len(value.encode())} bytes: a secret must be at least {MIN_SECRET_BYTES} "
                "(e.g. openssl rand -hex 32)"
            )
    if config.admin_token and len(config.admin_token.encode()) < MIN_SECRET_BYTES:
        problems.append(
            f"LUDOTHEQUE_ADMIN_TOKEN is {len(config.admin_token.encode())} bytes: it must be at least "
            f"{MIN_SECRET_BYTES} (e.g. openssl rand -hex 32)"
        )
    if config.previous_secret and not config.secret:
        problems.append("LUDOTHEQUE_PREVIOUS_SECRET needs LUDOTHEQUE_SECRET, the secret that replaces it")
    if config.create_policy not in POLICIES:
        problems.append(f"LUDOTHEQUE_CREATE_POLICY {config.create_policy!r} is not one of {', '.join(POLICIES)}")
    if config.public_origin and not _is_origin(config.public_origin):
        problems.append(
            f"LUDOTHEQUE_PUBLIC_ORIGIN {config.public_origin!r} is not an origin: http(s)://host[:port], nothing after"
        )
    for name in ("create_rate", "live_games", "bot_game_rate", "join_code_rate"):
        if getattr(config, name) < 0:
            problems.append(f"LUDOTHEQUE_{name.upper()} must be 0 or more")
    return problems
