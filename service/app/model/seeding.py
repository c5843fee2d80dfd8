"""The random numbers of a game, derived from its secret seed.

Every draw a game makes (its deal, a reshuffle decided by a move, a bot's choice) comes
from a generator seeded by the game's seed, what it is for, and the version the game
was at. So a decision taken again (after a conflict, in a verification, in a game
continued after an import) draws the same numbers; the outcomes are written into
events all the same, so replaying a log never needs them."""

from __future__ import annotations

import random

SETUP = "setup"
DECIDE = "decide"
BOT = "bot"
HINT = "hint"  # a hint's bot (GetHint): its draws, per seat, as `hint_purpose` names them


def game_rng(seed: int, purpose: str, version: int) -> random.Random:
    return random.Random(f"{seed}:{purpose}:{version}")


def hint_purpose(seat: int) -> str:
    """The purpose of `seat`'s hint draws: a seat's hint never shares a bot's numbers."""
    return f"{HINT}:{seat}"
