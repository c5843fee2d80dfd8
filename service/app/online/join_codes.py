"""Join codes: the short codes players type (or read aloud) to join a game with open
seats, in place of its identifier.

Ten characters from an alphabet without the look-alikes 0/O, 1/I/L, nor U: 30^10, about
5.9 × 10^14 codes; case, spaces and dashes do not matter when typed. A code is claimed in
the store for its game (a claim is atomic: two games never get the same code) and lasts a
week. It is not a token: it only lets a player take an open seat, and it answers only
while its game waits for players (an unknown code, and the code of a game that started or
ended, get the same NOT_FOUND). Guesses are limited per client address (Quotas.
guess_join_code, --join-code-rate): at 30 a minute, one address tries 15.8 million codes
a year, and with 100,000 games waiting at once a guess finds one with odds of 1 in 5.9
billion: about 375 years of guessing per game found (docs/SECURITY.md)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable

from service.app.model.errors import Code, ServiceError
from service.app.model.stored import store_errors
from service.store.base import Coordination

ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
LENGTH = 10
LIFETIME_MS = 7 * 24 * 3600 * 1000
_SHAPE = re.compile(f"^[{ALPHABET}]{{{LENGTH}}}$")
_IGNORED = re.compile(r"[\s-]")
ATTEMPTS = 8  # codes drawn before giving up: a collision is rare, eight in a row absurd


def random_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalized(text: str) -> str | None:
    """The code `text` spells (any case, with spaces or dashes), or None if it spells none."""
    code = _IGNORED.sub("", text).upper()
    return code if _SHAPE.match(code) else None


def _key(code: str) -> str:
    return f"join-code:{code}"


class JoinCodes:
    def __init__(self, coordination: Coordination, new_code: Callable[[], str] = random_code) -> None:
        self._coordination = coordination
        self._new_code = new_code

    async def claim(self, game_id: str) -> str:
        """A new code for `game_id`, claimed in the store."""
        for _ in range(ATTEMPTS):
            code = self._new_code()
            with store_errors():
                if await self._coordination.claim(_key(code), game_id, LIFETIME_MS) == game_id:
                    return code
        raise ServiceError(Code.UNAVAILABLE, "No join code could be found for the game: try again.")

    async def game_of(self, text: str) -> str | None:
        """The game whose code `text` spells, or None (not a code, or no game has it)."""
        code = normalized(text)
        if code is None:
            return None
        with store_errors():
            return await self._coordination.lookup(_key(code))
