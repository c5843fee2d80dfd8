"""Server configuration: every setting is a flag of `ludotheque serve` and a
LUDOTHEQUE_* environment variable (the flag wins). Each is declared once, in its family
beside the code that uses it (service/settings.py says how); `Config` gathers the
families, and a new family is one line here."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass

from engines.registry import GAMES
from service.api.connections import ConnectionSettings
from service.api.grpc_server import GrpcSettings
from service.api.http_server import HttpSettings
from service.api.websocket import WebSocketSettings
from service.app.access.settings import AccessSettings
from service.app.game_app import Settings
from service.cli.log_setup import LogSettings
from service.settings import Setting, SettingsError, add_flags, declarations, read, setting
from service.store.settings import StoreSettings


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """The server process itself: where it listens, how large a request, how long a
    shutdown, which games, how many processes."""

    host: str = setting("0.0.0.0", "address to listen on")
    max_message_bytes: int = setting(1 << 20, "largest request accepted")
    shutdown_grace: float = setting(
        10.0, "seconds to finish calls in flight on SIGTERM (live event streams end at once)"
    )
    example_games: bool = setting(
        False,
        "also serve the example games kept to teach how a game is added (docs/NEW_GAME.md): "
        f"{', '.join(sorted(k for k, g in GAMES.items() if g.example)) or 'none'}",
    )
    workers: int = setting(
        1,
        "server processes sharing the two ports (SO_REUSEPORT), supervised by this one; "
        "more than 1 needs a shared store (Redis)",
    )


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting of `ludotheque serve`, family by family (made by `from_arguments`)."""

    store: StoreSettings
    server: ServerSettings
    grpc: GrpcSettings
    http: HttpSettings
    connections: ConnectionSettings
    websocket: WebSocketSettings
    access: AccessSettings
    app: Settings
    logs: LogSettings


SETTINGS: tuple[Setting, ...] = tuple(declarations(Config))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_flags(parser, Config)


def from_arguments(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> Config:
    """Flags first, then environment variables, then defaults; SystemExit says every
    value that is wrong, so that an operator knows what to fix."""
    try:
        return read(Config, args, environ)
    except SettingsError as error:
        raise SystemExit(f"ludotheque serve: {error}") from None


def defaults() -> Config:
    """A server's configuration when nothing is set."""
    return from_arguments(argparse.Namespace(), {})
