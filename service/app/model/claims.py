"""What the caller says it has seen of a game: the highest version any server gave it
(`known_version` on the calls and the Play join), for the request's duration.

A server finding its store behind that version knows the store lost versions it may
never have seen itself (another process acknowledged them, or this one before a
restart), and records the loss instead of giving their numbers to other moves
(LiveGames.vouch, docs/DURABILITY.md). A claim is believed only from a caller holding a
token signed for that game (its seats', its host's, the admin's: `GameApp.claiming`
checks), and only up to MAX_CLAIMED versions past the store's: a failover loses the
replica's lag, never that many versions of one game."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

MAX_CLAIMED = 1000  # versions a claim may be past the store's and still be believed


@dataclass(frozen=True, slots=True)
class Claim:
    game_id: str
    known_version: int


_current: ContextVar[Claim | None] = ContextVar("ludotheque_claim", default=None)


def claimed(game_id: str) -> int:
    """The version the current caller says it was given of `game_id` (0: none)."""
    claim = _current.get()
    return claim.known_version if claim is not None and claim.game_id == game_id else 0


@contextmanager
def claiming(game_id: str, known_version: int) -> Iterator[None]:
    """Makes the caller's claim the current one for the body (no claim: nothing changes)."""
    if not known_version:
        yield
        return
    token = _current.set(Claim(game_id, known_version))
    try:
        yield
    finally:
        _current.reset(token)
