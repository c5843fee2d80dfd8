"""Access to the games' static data in seeds/<game>/ (decks, boards, tiles).

The data is part of the rules, like code: it is read once, when an engine module is
imported, and never again. LUDOTHEQUE_SEEDS points elsewhere (an installed copy)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

_DEFAULT_SEEDS = Path(__file__).resolve().parent.parent / "seeds"


def seeds_dir() -> Path:
    return Path(os.environ.get("LUDOTHEQUE_SEEDS", _DEFAULT_SEEDS))


def load_json(game: str, name: str) -> Any:
    """The parsed JSON file seeds/<game>/<name>."""
    path = seeds_dir() / game / name
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)
