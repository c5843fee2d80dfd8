"""The live games a process plays (`LiveGames`): each game's record and current state,
cached (live_cache.py), loaded from the store and kept in step with what other
processes append (game_repository.py), and checked against what the store lost before
any use (loss_checks.py). `LiveGames.load` is the one door to a game; the cached game
itself is live_game.py's `LiveGame`."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import Awaitable, Callable, Mapping

from service.app.model import claims
from service.app.model.errors import ServiceError, invalid_argument
from service.app.model.game_repository import GameRepository
from service.app.model.live_cache import LiveCache
from service.app.model.live_game import LiveGame
from service.app.model.loss_checks import LossChecks, Owed
from service.app.model.snapshots import Snapshots
from service.app.observe import request_context
from service.app.observe.metrics import Metrics
from service.store.base import EventStore

log = logging.getLogger(__name__)

GAME_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
RECHECKS = 32  # cached games checked at once after a failover

# Records what the store lost of a game (losses.Losses.reconcile): rebuilds the game
# from the store and records the loss owed; raises ServiceError when it cannot now.
Reconcile = Callable[["LiveGames", LiveGame, Owed], Awaitable[None]]


class LiveGames:
    """The games this process plays: `cache` (least recently used dropped first, one
    lock per game), `repository` (read from `store`, starting from `snapshots`), and
    `checks` (against what the store lost, and the losses owed). Without `reconcile`,
    a game the store is found behind is just rebuilt from the store."""

    def __init__(
        self,
        store: EventStore,
        metrics: Metrics,
        cache_size: int,
        snapshots: Snapshots,
        event_limits: Mapping[str, int] | None = None,
        reconcile: Reconcile | None = None,
    ) -> None:
        self.store = store
        self.snapshots = snapshots
        self.cache = LiveCache(cache_size, metrics)
        self.repository = GameRepository(store, snapshots, event_limits or {})
        record_loss = None if reconcile is None else functools.partial(reconcile, self)
        self.checks = LossChecks(self.repository, metrics, record_loss)

    async def load(self, game_id: str, *, refresh: bool = True) -> LiveGame:
        """The game, cached; `refresh`: with the events other processes appended. A
        loss owed of it is recorded first, and the caller's claim checked (claims.py)."""
        if not GAME_ID_PATTERN.match(game_id):
            raise invalid_argument("game_id", "game_id must be 1 to 64 letters, digits, '-' or '_'.")
        request_context.note(game_id=game_id)
        live = self.cache.use(game_id)
        if live is None:
            live = await self.repository.open(game_id)
            self.cache.remember(live)
            refresh = False  # just read
        checks = self.checks
        if checks.owed:  # a loss found and not recorded yet, of this game or another
            await checks.settle(live)
        if refresh:
            await checks.refresh(live)
        claim = claims.claim_of(game_id)
        if claim is not None:
            if claim.known_version > live.version:
                await checks.vouch(live, claim)
            else:
                await checks.check_event(live, claim)
        return live

    async def refresh(self, live: LiveGame) -> None:
        """Applies the events other processes appended since `live.version`; a store
        found behind the cached game has the loss recorded (LossChecks.refresh)."""
        await self.checks.refresh(live)

    async def caught_up(self, live: LiveGame) -> bool:
        """Applies the events other processes appended; whether there were any."""
        version = live.version
        await self.refresh(live)
        return live.version != version

    async def recheck(self) -> int:
        """Checks every cached game against the store (a failover may have lost versions
        of any: the one that acknowledged them is this process, which may be the only
        one to know), RECHECKS at a time; how many were found behind (their losses
        recorded, or owed)."""
        before = self.checks.found_behind

        async def check(live: LiveGame) -> None:
            async with self.cache.lock(live.game_id):
                with contextlib.suppress(ServiceError):  # owed if found behind; else seen at its next use
                    await self.refresh(live)

        games = self.cache.games()
        for start in range(0, len(games), RECHECKS):
            await asyncio.gather(*(check(live) for live in games[start : start + RECHECKS]))
        found = self.checks.found_behind - before
        if found:
            log.warning("after a change of the store's masters, %d cached games were found behind the store", found)
        return found
