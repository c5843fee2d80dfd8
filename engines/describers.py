"""The describer of every registered kind, by name (engines/describing.py), the
example games' included: each folder of engines/ registers its own
(engines/registration.py)."""

from __future__ import annotations

from engines.describing import Describer
from engines.registry import GAMES

DESCRIBERS: dict[str, Describer] = {kind: game.describer for kind, game in GAMES.items()}
