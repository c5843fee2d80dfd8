"""Creation limits, per creator and shared by every server process (they are counted in
the store, EventStore.admit): how many games a creator may create per minute, how many
unfinished ("live") games they may have at once, and how many games of bots only (the
server plays them itself: the costliest to create) per minute. The admin is not limited.
Also, per client address, how many join codes anyone may try a minute.

A live game leaves its creator's quota when it finishes (Moves tells `game_over`). If
that is missed (a process died in between, a game expired), the quota heals itself: a
creator found at their limit has their games looked at, and the finished or vanished
ones leave."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from service.app.access.creators import Creator
from service.app.model.errors import ServiceError, permission_denied, resource_exhausted
from service.app.model.stored import store_errors
from service.settings import at_least, setting
from service.store.base import EventLog, GameNotFound, SharedSets, StoreUnavailable

log = logging.getLogger(__name__)

WINDOW_MS = 60_000  # the rates are per minute, over a sliding window
LIVE_RETRY_MS = 60_000  # what to tell a creator at their live quota: a game of theirs must end first
FINISHED = "finished"  # the store's status label of a finished game (views/listing.py: STATUS_NAMES)


@dataclass(frozen=True, slots=True)
class CreationLimits:
    """Per creator; 0: no limit. Games of bots only: None no limit, 0 for the admin only.
    And per client address, whoever may create: join-code guesses (JoinGame by a code).
    The defaults are a server's (`ludotheque serve`); NO_LIMITS has none."""

    per_minute: int = setting(
        60, "games one creator may create per minute; 0: no limit", name="create_rate", check=at_least(0)
    )
    live_games: int = setting(100, "unfinished games one creator may have at once; 0: no limit", check=at_least(0))
    bot_games_per_minute: int | None = setting(
        0,
        "games of bots only one creator may create per minute; 0: only the admin",
        name="bot_game_rate",
        check=at_least(0),
    )
    join_code_guesses_per_minute: int = setting(
        30,
        "join codes one client address may try per minute (JoinGame by a code; an IPv6 client by its /64), "
        "whatever the creation policy; 0: no limit",
        name="join_code_rate",
        check=at_least(0),
    )


NO_LIMITS = CreationLimits(per_minute=0, live_games=0, bot_games_per_minute=None, join_code_guesses_per_minute=0)


class QuotaStore(SharedSets, EventLog, Protocol):
    """The parts of the store quotas use: the shared sets they count in, and the games'
    status (a slot whose game is over is healed)."""


def live_key(identity: str) -> str:
    return f"live:{identity}"


class Quotas:
    def __init__(self, store: QuotaStore, limits: CreationLimits, now_ms: Callable[[], int]) -> None:
        self._store = store
        self.limits = limits
        self._now_ms = now_ms

    async def admit(self, creator: Creator, game_id: str, *, bots_only: bool) -> None:
        """Counts the game `game_id` about to be created against the creator's limits;
        raises RESOURCE_EXHAUSTED (PERMISSION_DENIED: bots only, for the admin only)."""
        if creator.is_admin:
            return
        limits = self.limits
        if bots_only and limits.bot_games_per_minute == 0:
            raise permission_denied("Only the admin may create a game whose every seat is a bot.")
        if limits.live_games:
            await self._take_live_slot(creator, game_id)
        try:
            await self._take_rate(creator, game_id, bots_only=bots_only)
        except ServiceError:
            await self.release(creator, game_id)
            raise

    async def admit_bots_only(self, creator: Creator, game_id: str, refusal: str = "") -> None:
        """A game that becomes one of bots only: its host starts it with nobody seated,
        or a bot takes over its last player's seat (its player asked, or its turn clock
        did). It then plays itself out here, like a game created with bots only, and
        counts as one, once (its live slot was taken at its creation). `refusal`: what
        to tell a creator who may have none (PERMISSION_DENIED)."""
        if creator.is_admin:
            return
        if self.limits.bot_games_per_minute == 0:
            raise permission_denied(
                refusal or "Only the admin may start a game whose every seat would be a bot: wait for a player."
            )
        await self._take_rate(creator, game_id, bots_only=True)

    async def guess_join_code(self, client: str) -> None:
        """Counts one JoinGame by a join code from `client` (an address identity); past
        the rate, RESOURCE_EXHAUSTED (HTTP 429 with Retry-After): a code is a short
        secret, and this rate is what makes guessing one pointless (join_codes.py)."""
        rate = self.limits.join_code_guesses_per_minute
        if not rate:
            return
        with store_errors():
            admission = await self._store.admit(
                f"join-code-guesses:{client}", uuid.uuid4().hex, rate, self._now_ms(), WINDOW_MS
            )
        if not admission.admitted:
            raise resource_exhausted(
                "JOIN_CODE_RATE",
                f"join-code-guesses:{client}",
                f"You may try {rate} join codes a minute: try again in a little while.",
                admission.retry_after_ms if admission.retry_after_ms is not None else WINDOW_MS,
            )

    async def _take_rate(self, creator: Creator, game_id: str, *, bots_only: bool) -> None:
        limits = self.limits
        rate, name = (limits.bot_games_per_minute, "bot-games") if bots_only else (limits.per_minute, "create")
        if rate:
            now = self._now_ms()
            with store_errors():
                admission = await self._store.admit(f"{name}:{creator.identity}", game_id, rate, now, WINDOW_MS)
            if not admission.admitted:
                what = "games of bots only" if bots_only else "games"
                raise resource_exhausted(
                    f"{name.upper().replace('-', '_')}_RATE",
                    f"{name}:{creator.identity}",
                    f"You may create {rate} {what} a minute: try again in a little while.",
                    admission.retry_after_ms if admission.retry_after_ms is not None else WINDOW_MS,
                )

    async def _take_live_slot(self, creator: Creator, game_id: str) -> None:
        key, limit = live_key(creator.identity), self.limits.live_games
        with store_errors():
            admission = await self._store.admit(key, game_id, limit, self._now_ms())
            if not admission.admitted and await self._heal(key) > 0:
                admission = await self._store.admit(key, game_id, limit, self._now_ms())
        if not admission.admitted:
            raise resource_exhausted(
                "LIVE_GAMES_QUOTA",
                key,
                f"You have {limit} unfinished games: finish one before you create another.",
                LIVE_RETRY_MS,
            )

    async def _heal(self, key: str) -> int:
        """Takes the finished and vanished games out of a live quota; how many."""
        healed = 0
        for game_id in await self._store.members(key, self._now_ms()):
            try:
                finished = (await self._store.info(game_id)).status == FINISHED
            except GameNotFound:
                finished = True
            if finished:
                await self._store.release(key, game_id)
                healed += 1
        return healed

    async def release(self, creator: Creator, game_id: str) -> None:
        """The game no longer counts (it was not created after all, or it is over)."""
        await self.game_over(creator.identity, game_id)

    async def game_over(self, created_by: str, game_id: str) -> None:
        """A live game of `created_by` is over: its quota slot is free again. Best
        effort: a slot not freed now is healed when the quota is reached."""
        if not self.limits.live_games or not created_by or created_by == "admin":
            return
        try:
            await self._store.release(live_key(created_by), game_id)
        except StoreUnavailable as error:
            log.warning("game %s is over but still counts against its creator's quota for now: %s", game_id, error)
