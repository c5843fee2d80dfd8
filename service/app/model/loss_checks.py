"""The checks of a live game against what the store lost (`LossChecks`): a refresh that
finds the store behind the cache, a caller's claim, proven by a receipt, to have been
given versions the store does not have (claims.py), and the losses found and owed until
recorded.

The store is the truth: when it no longer holds the cached version as it was applied
(a Redis failover lost versions, or they were written again with other events), the
game is rebuilt from the store and the loss recorded (keeping/losses.py): nothing is
ever served or decided from a state the store does not have.

A loss found is owed until it is recorded (`LossChecks.owed`, kept apart from the
cache: evicting a game forgets nothing of it): until then every use of the game, a
move first, records it first, and answers UNAVAILABLE while that fails, so the lost
numbers are never given to other moves meanwhile."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from service.app.model import claims
from service.app.model.game_repository import GameRepository
from service.app.model.live_game import LiveGame
from service.app.model.marks import Marks
from service.app.observe.metrics import Metrics

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Owed:
    """A loss this process found and has not recorded yet: the store does not hold
    versions up to `known` as this process applied or gave them out (`marks`, the
    fingerprints the cache had when it was found)."""

    known: int
    marks: Marks
    recording: asyncio.Lock = field(default_factory=asyncio.Lock)  # one recording at a time


# Records a loss owed of a game (losses.Losses.reconcile): rebuilds the game from the
# store and records the loss; raises ServiceError when it cannot now.
RecordLoss = Callable[[LiveGame, Owed], Awaitable[None]]


class LossChecks:
    """Checks live games read from `repository` against what the store lost, and keeps
    the losses found until `record_loss` records them (without it, the game is just
    rebuilt from the store)."""

    def __init__(self, repository: GameRepository, metrics: Metrics, record_loss: RecordLoss | None = None) -> None:
        self._repository = repository
        self._metrics = metrics
        self._record_loss = record_loss
        self.unproven = claims.Unproven()  # claims without a valid receipt: believed never
        self.owed: dict[str, Owed] = {}  # game id -> the loss found and not yet recorded
        self.found_behind = 0  # times the store was found behind a cached game

    async def refresh(self, live: LiveGame) -> None:
        """Applies the events other processes appended (GameRepository.refresh); a store
        found behind the cached game owes the loss and records it."""
        version = live.version
        if not await self._repository.refresh(live) and live.version == version:
            await self.store_behind(live)  # (else a concurrent request of this process saw to it)

    async def store_behind(self, live: LiveGame, seen: int = 0) -> None:
        """The store does not hold the history `live` was built from (or that a reader
        was given, up to `seen`): the loss is owed from now on, and recorded (the game
        rebuilt from the store) before anything else is done with the game; raises
        ServiceError (UNAVAILABLE) when it cannot be recorded now."""
        self._metrics.labelled(self._metrics.store_behind, live.engine.kind).inc()
        self.found_behind += 1
        known = max(live.version, seen)
        log.warning(
            "game %s: the event store does not hold the versions this server had up to %d; "
            "rebuilding the game from what the store has",
            live.game_id,
            known,
        )
        self.owe(live.game_id, known, live.in_store.marks)
        await self.settle(live)

    async def vouch(self, live: LiveGame, claim: claims.Claim) -> None:
        """The caller says it was given versions up to `claim.known_version`, past the
        cached game. With a valid receipt (claims.py), another process stored them
        (with WAIT, perhaps not shown yet: reading them confirms them), or the store
        lost them, and the loss is recorded (as store_behind). Without one, nothing
        changes: the claim is counted and logged now and then (claims.Unproven)."""
        known = claim.known_version
        if not claim.proven:
            self._metrics.unproven_claims.inc()
            self.unproven.heard(live.game_id, known, live.version)
            return
        if known - live.version > claims.MAX_CLAIMED:
            _disbelieved(live, known, "too far past the store's")
            return
        await self.refresh(live)
        if known > live.version:
            await self._repository.read_to(live, known)
        if known <= live.version:
            return
        self._metrics.labelled(self._metrics.store_behind, live.engine.kind).inc()
        log.warning(
            "game %s: a caller was given versions up to %d (its receipt proves it); the event store has %d: "
            "recording the loss",
            live.game_id,
            known,
            live.version,
        )
        self.owe(live.game_id, known, live.in_store.marks)
        await self.settle(live)

    async def check_event(self, live: LiveGame, claim: claims.Claim) -> None:
        """The caller proves it was given a version the cached game holds: under
        another event than its receipt was signed over (and not recorded lost), the
        store lost that version and its number went to another move (the history
        forked), and the loss is recorded (as `reused`, losses.py, which reads the
        store to be sure). A version older than the fingerprints kept is not checked."""
        known, event_crc = claim.known_version, claim.event_crc
        marks = live.in_store.marks
        held = marks.crc(known)
        if event_crc is None or held is None or held == event_crc:
            return
        if any(loss.first <= known <= loss.last for loss in live.losses):
            return  # given before the loss recorded there
        self._metrics.labelled(self._metrics.store_behind, live.engine.kind).inc()
        log.warning(
            "game %s: a caller was given version %d as another event than this server holds (its receipt "
            "proves it): checking the store for a fork",
            live.game_id,
            known,
        )
        self.owe(live.game_id, live.version, marks.given(known, event_crc))
        await self.settle(live)

    def owe(self, game_id: str, known: int, marks: Marks) -> None:
        """Notes that the store lacks versions up to `known` of the game (`marks`: what
        was applied of them), until the loss is recorded."""
        owed = self.owed.get(game_id)
        if owed is None:
            self.owed[game_id] = Owed(known, marks.copy())
            self._metrics.unrecorded_losses.set(len(self.owed))
        else:  # found again before it was recorded: the fingerprints of the first finding stand
            owed.known = max(owed.known, known)

    async def settle(self, live: LiveGame) -> None:
        """Records the loss owed of `live`'s game, if any (the game rebuilt from the
        store); raises ServiceError (UNAVAILABLE) while it cannot be recorded."""
        owed = self.owed.get(live.game_id)
        if owed is None:
            return
        async with owed.recording:
            if self.owed.get(live.game_id) is not owed:
                return  # recorded meanwhile
            if self._record_loss is None:
                await self._repository.rebuild(live)
            else:
                await self._record_loss(live, owed)
            del self.owed[live.game_id]
            self._metrics.unrecorded_losses.set(len(self.owed))


def _disbelieved(live: LiveGame, known: int, why: str) -> None:
    """Logs a claim about `live` (up to `known`) that is not believed, and why."""
    log.warning(
        "game %s: a caller says it was given version %d, the store has %d: not believed (%s)",
        live.game_id,
        known,
        live.version,
        why,
    )
