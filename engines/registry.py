"""The game kinds this server knows: every folder of engines/ that registers a game
(engines/<kind>/__init__.py's `GAME`, engines/registration.py), found when this module
is imported. A new game is a new folder; nothing here names one.

`GAMES` holds every registration, the example games included (docs/NEW_GAME.md);
`ENGINES`, the kinds this server plays: every game but the examples, unless they were
asked for (LUDOTHEQUE_EXAMPLE_GAMES, or `ludotheque serve --example-games`, which
calls `serve_examples` before the server starts)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from engines.registration import AnyEngine, Registration

__all__ = ["ENGINES", "EXAMPLES_ENV", "GAMES", "AnyEngine", "Registration", "get_engine", "serve_examples"]

EXAMPLES_ENV = "LUDOTHEQUE_EXAMPLE_GAMES"
KIND_NAME = re.compile(r"[a-z][a-z0-9]*")  # a proto package segment, a field name and a JSON name alike
_ENGINES_DIR = Path(__file__).resolve().parent


def discover(directory: Path = _ENGINES_DIR, package: str = "engines") -> dict[str, Registration]:
    """Every game registered under `directory` (the package `package`), by kind.
    A sub-package that registers nothing, or not under its own name, is an error that
    says what to fix: a folder of engines/ is a game."""
    found: dict[str, Registration] = {}
    for module in sorted(pkgutil.iter_modules([str(directory)]), key=lambda m: m.name):
        if not module.ispkg or module.name.startswith("_"):
            continue
        folder = f"{directory.name}/{module.name}/"
        if not KIND_NAME.fullmatch(module.name):
            raise ImportError(f"{folder}: a kind's name is lower-case letters and digits, a letter first")
        game = getattr(importlib.import_module(f"{package}.{module.name}"), "GAME", None)
        if not isinstance(game, Registration):
            raise ImportError(
                f"{folder}__init__.py must export GAME = Registration(...) (engines/registration.py): "
                "every folder of engines/ is a game (docs/NEW_GAME.md)"
            )
        if game.kind != module.name:
            raise ImportError(f"{folder}: its engine's kind is {game.kind!r}; name the folder and the kind alike")
        found[game.kind] = game
    return found


GAMES: Mapping[str, Registration] = MappingProxyType(discover())

ENGINES: dict[str, AnyEngine] = {kind: game.engine for kind, game in GAMES.items() if not game.example}


def serve_examples() -> None:
    """Plays the example games too, from now on (before a server starts)."""
    for kind, game in GAMES.items():
        ENGINES.setdefault(kind, game.engine)


def _asked(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


if _asked(os.environ.get(EXAMPLES_ENV, "")):
    serve_examples()


def get_engine(kind: str) -> AnyEngine | None:
    return ENGINES.get(kind)
