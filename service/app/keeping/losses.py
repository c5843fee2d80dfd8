"""Recording what the event store lost of a game: versions this server had stored and
acknowledged (or a live stream had been given) that the store no longer holds, after a
Redis failover promoted a replica that never received them.

The game is rebuilt from what the store has, and the loss is appended to its history:
placeholder events take the lost version numbers (no move: the state does not change),
so those numbers are never used again for other moves, and a notice after them tells
every follower. A client naming a lost version is then told so (errors.versions_lost);
GetGame lists the game's losses.

What the store lost is found by comparing it with what the cache applied: every version
past the store's last one is lost; a version the store holds under another fingerprint
(marks.py) was lost and its number used again by a server that did not know: the
history forked, and the loss is recorded as `reused` (the game is damaged, and says
so). A version older than the fingerprints kept is taken to be the same.

A loss found is owed (LossChecks.owed) until it is recorded: the game answers
UNAVAILABLE meanwhile. Recording tries a few times through the store's failures (a
failover under way fails some calls), then leaves the loss owed: the next use of the
game, or `keep_recording` in the background, tries again.
See docs/DURABILITY.md."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from ludotheque.v1 import game_pb2

from service.app.model.errors import Code, ServiceError
from service.app.model.live import LiveGames
from service.app.model.live_game import LiveGame
from service.app.model.loss_checks import Owed
from service.app.model.marks import Marks
from service.app.model.stored import store_errors
from service.app.moves.writer import Writer

log = logging.getLogger(__name__)

ATTEMPTS = 4  # others may be recording the same loss, or moving the game, meanwhile
PAUSE = 0.05  # seconds before trying again after a failure of the store (then twice, thrice...)
RETRY_EVERY = 0.5  # seconds between two background attempts at the losses still owed
REPAIRING = "The game's history is being repaired after a storage failover: retry."
# Placeholders written for one loss at most; past that, the numbers cannot all be kept
# and the loss is recorded as reused (the game is damaged).
MAX_PLACEHOLDERS = 10_000


class Losses:
    def __init__(self, now_ms: Callable[[], int], writer: Writer) -> None:
        self._now_ms = now_ms
        self._writer = writer

    async def reconcile(self, games: LiveGames, live: LiveGame, owed: Owed) -> None:
        """Rebuilds `live` from the store and records the versions the store lost of
        what this server had (up to `owed.known`); raises ServiceError (UNAVAILABLE)
        when it cannot now, the loss still owed."""
        for attempt in range(ATTEMPTS):
            try:
                await games.repository.rebuild(live)
                loss = await self._loss(games, live, owed.marks, owed.known)
                if loss is None:
                    return  # nothing lost, or the loss is recorded already
                if await self._record(live, loss, owed.known):
                    return
            except ServiceError as error:
                if error.code is not Code.UNAVAILABLE or attempt == ATTEMPTS - 1:
                    raise
                log.warning("game %s: recording a loss failed (%s); trying again", live.game_id, error.message)
                await asyncio.sleep(PAUSE * (attempt + 1))
        raise ServiceError(Code.UNAVAILABLE, REPAIRING)

    async def keep_recording(self, games: LiveGames, stop: asyncio.Event) -> None:
        """Until `stop`: tries again, every RETRY_EVERY seconds, to record the losses
        this process found and could not record yet (whether or not anyone uses their
        games: their players may have gone to another process)."""
        while not stop.is_set():
            for game_id in list(games.checks.owed):
                try:
                    async with games.cache.lock(game_id):
                        live = games.cache.get(game_id)
                        if live is None:
                            await games.load(game_id, refresh=False)  # (records it)
                        else:
                            await games.checks.settle(live)
                except ServiceError as error:
                    if error.code in (Code.NOT_FOUND, Code.DATA_LOSS):
                        games.checks.owed.pop(game_id, None)  # no game left to record it in
                    log.debug("game %s: the loss is still not recorded: %s", game_id, error.message)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), RETRY_EVERY)

    async def _loss(self, games: LiveGames, live: LiveGame, marks: Marks, known: int) -> game_pb2.HistoryLoss | None:
        """What the store lost of versions 1..`known`, not yet recorded (None: nothing)."""
        stored = live.version
        differing: list[int] = []  # versions the store holds with other events than the cache had
        last_compared = min(stored, marks.last)
        if marks.first <= last_compared:
            with store_errors():
                events = await games.store.read(live.game_id, marks.first, last_compared)
            differing = [item.version for item in events if not marks.matches(item)]
        recorded = live.losses

        def unrecorded(version: int) -> bool:
            return not any(loss.first <= version <= loss.last for loss in recorded)

        reused = [version for version in differing if unrecorded(version)]
        if not reused and known <= stored:
            return None
        first = min(reused) if reused else stored + 1
        too_many = known - stored > MAX_PLACEHOLDERS
        return game_pb2.HistoryLoss(first=first, last=known, reused=bool(reused) or too_many)

    async def _record(self, live: LiveGame, loss: game_pb2.HistoryLoss, known: int) -> bool:
        """Appends the placeholders and the notice (the writer's); False when the game
        moved meanwhile."""
        stored = live.version
        # Placeholders keep the lost numbers the store has not used again; the notice follows.
        placeholders = max(known - stored, 0) if known - stored <= MAX_PLACEHOLDERS else 0
        if not await self._writer.record_loss(live, loss, placeholders, self._now_ms()):
            return False
        log.error(
            "game %s: the event store lost versions %d to %d that this server had acknowledged (a Redis failover "
            "without a replica that had them); %s; the game goes on from version %d",
            live.game_id,
            loss.first,
            loss.last,
            "their numbers had already been used again for other events: the history forked"
            if loss.reused
            else "recorded as placeholders, their numbers are not used again",
            live.version,
        )
        return True
