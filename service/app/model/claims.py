"""What the caller says it has seen of a game: the highest version any server gave it
(`known_version` on the calls and the Play join), for the request's duration.

A server finding its store behind that version knows the store lost versions it may
never have seen itself (another process acknowledged them, or this one before a
restart), and records the loss instead of giving their numbers to other moves
(LossChecks.vouch, docs/DURABILITY.md). A claim is believed only from a caller holding a
token signed for that game (its seats', its host's, the admin's: `GameApp.claiming`
checks), and only so far past the store's: a failover loses the replica's lag, a few
appends, never many versions of one game. A player's token vouches for less than the
admin's: a seat (or host) may forge a claim, so its claim is believed up to
MAX_CLAIMED_BY_PLAYER versions past the store's (a bot chain's slice: about the most a
lost append of a move holds), and players' claims record at most that many versions of
a game lost in all every PLAYER_LOSS_INTERVAL_S seconds in a process (LossChecks.vouch):
a seat making numbers up costs its game a few hundred placeholder versions every ten
minutes at most, not a thousand at every call. The admin's claim is believed up to
MAX_CLAIMED, always."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

MAX_CLAIMED = 1000  # versions the admin's claim may be past the store's and still be believed
MAX_CLAIMED_BY_PLAYER = 256  # versions a seat's or host's claim may be
PLAYER_CLAIMS_KEPT = 4096  # games whose players' recent claims are remembered
PLAYER_LOSS_INTERVAL_S = 600.0  # players' claims record MAX_CLAIMED_BY_PLAYER versions lost a game in so long


@dataclass(frozen=True, slots=True)
class Claim:
    game_id: str
    known_version: int
    by_admin: bool = False

    @property
    def most_believed(self) -> int:
        """How far past the store's version this claim may be and still be believed."""
        return MAX_CLAIMED if self.by_admin else MAX_CLAIMED_BY_PLAYER


_current: ContextVar[Claim | None] = ContextVar("ludotheque_claim", default=None)


def claimed(game_id: str) -> int:
    """The version the current caller says it was given of `game_id` (0: none)."""
    claim = _current.get()
    return claim.known_version if claim is not None and claim.game_id == game_id else 0


def claim_of(game_id: str) -> Claim | None:
    """The current caller's claim about `game_id`, if it made one."""
    claim = _current.get()
    return claim if claim is not None and claim.game_id == game_id else None


@contextmanager
def claiming(game_id: str, known_version: int, by_admin: bool = False) -> Iterator[None]:
    """Makes the caller's claim the current one for the body (no claim: nothing changes)."""
    if not known_version:
        yield
        return
    token = _current.set(Claim(game_id, known_version, by_admin))
    try:
        yield
    finally:
        _current.reset(token)


class PlayerClaims:
    """What players' claims may still record lost of each game in this process:
    MAX_CLAIMED_BY_PLAYER versions in all every PLAYER_LOSS_INTERVAL_S."""

    def __init__(self) -> None:
        # game id -> since when, and how many versions players' claims recorded lost since then
        self._recorded: OrderedDict[str, tuple[float, int]] = OrderedDict()

    def may_record(self, game_id: str, versions: int) -> bool:
        """Whether a player's claim may record `versions` more versions of the game as
        lost now, counting them if it may."""
        now = time.monotonic()
        since, used = self._recorded.get(game_id, (now, 0))
        if now - since >= PLAYER_LOSS_INTERVAL_S:
            since, used = now, 0
        if used + versions > MAX_CLAIMED_BY_PLAYER:
            return False
        self._recorded[game_id] = (since, used + versions)
        self._recorded.move_to_end(game_id)
        while len(self._recorded) > PLAYER_CLAIMS_KEPT:
            self._recorded.popitem(last=False)
        return True
