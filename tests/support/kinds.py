"""The kinds the suite covers, from what engines/ registers (engines/registry.py), so
that a new game folder is tested without touching a test: the engines of every
registered game (the examples included) for the tests of engines alone, the kinds a
server plays by default for the tests that start one, and what each registration says
its tests need to know (engines/registration.py's Proof)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from google.protobuf.message import Message

from engines.registry import ENGINES, GAMES, AnyEngine

# Every registered engine, by kind: the examples' too (docs/NEW_GAME.md).
EVERY_ENGINE: Mapping[str, AnyEngine] = MappingProxyType({kind: game.engine for kind, game in GAMES.items()})
EVERY_KIND = sorted(EVERY_ENGINE)
# What a server the tests start plays (examples only when asked: --example-games).
SERVED_KINDS = sorted(ENGINES)


def short_options(kind: str) -> Message:
    """Options that keep a test's game of `kind` short (its registration's), else the defaults."""
    game = GAMES[kind]
    options: Message = game.engine.options_type()
    if game.proof.short_options is not None:
        options.CopyFrom(game.proof.short_options)
    return options


def varied_options(kind: str) -> list[Message]:
    """Options whose moves are many and varied (its registration's), else the defaults."""
    game = GAMES[kind]
    return list(game.proof.varied_options) or [game.engine.options_type()]


def with_short(kind: str, options: Message) -> Message:
    """`options`, with those that keep a game short set over them."""
    merged = type(options)()
    merged.CopyFrom(options)
    short = GAMES[kind].proof.short_options
    if short is not None:
        merged.MergeFrom(short)
    return merged
