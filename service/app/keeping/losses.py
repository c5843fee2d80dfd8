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
See docs/DURABILITY.md."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

from ludotheque.v1 import game_pb2

from service.app.keeping.retention import RetentionPolicy
from service.app.model.errors import Code, ServiceError
from service.app.model.live import LiveGame, LiveGames
from service.app.model.marks import Marks
from service.app.model.stored import store_errors
from service.app.observe.metrics import Metrics
from service.app.views.views import STATUS_NAMES, status_code, summary_bytes, timestamp
from service.store.base import VersionConflict

log = logging.getLogger(__name__)

ATTEMPTS = 4  # others may be recording the same loss, or moving the game, meanwhile
# Placeholders written for one loss at most; past that, the numbers cannot all be kept
# and the loss is recorded as reused (the game is damaged).
MAX_PLACEHOLDERS = 10_000


class Losses:
    def __init__(self, metrics: Metrics, now_ms: Callable[[], int], retention: RetentionPolicy) -> None:
        self._metrics = metrics
        self._now_ms = now_ms
        self._retention = retention

    async def reconcile(self, games: LiveGames, live: LiveGame, seen: int = 0) -> None:
        """Rebuilds `live` from the store and records the versions the store lost of
        what this server had (the cache, or a reader given versions up to `seen`)."""
        known = max(live.version, seen)
        marks = live.marks.copy()
        for _ in range(ATTEMPTS):
            await games.rebuild(live)
            loss = await self._loss(games, live, marks, known)
            if loss is None:
                return  # nothing lost, or the loss is recorded already
            if await self._record(games, live, loss, known):
                return
        raise ServiceError(Code.UNAVAILABLE, "The game's history is being repaired after a storage failover: retry.")

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

    async def _record(self, games: LiveGames, live: LiveGame, loss: game_pb2.HistoryLoss, known: int) -> bool:
        """Appends the placeholders and the notice; False when the game moved meanwhile."""
        stored, engine, now = live.version, live.engine, self._now_ms()
        # Placeholders keep the lost numbers the store has not used again; the notice follows.
        holders = list(range(stored + 1, known + 1)) if known - stored <= MAX_PLACEHOLDERS else []
        events = []
        for version in [*holders, (holders[-1] if holders else stored) + 1]:
            event = game_pb2.Event(version=version, rules_version=engine.rules_version, history_loss=loss)
            event.recorded_at.CopyFrom(timestamp(now))
            events.append(event)
        blobs = [event.SerializeToString() for event in events]
        live.losses.append(loss)
        status = engine.status(live.state)
        label = STATUS_NAMES[status_code(status, live.table.started)]
        key = f"system/history-loss-{stored}-{known}"
        try:
            with store_errors():
                await games.store.append(
                    live.game_id,
                    stored,
                    blobs,
                    key,
                    hashlib.sha256(key.encode()).digest(),
                    label,
                    summary_bytes(live, status, stored + len(blobs), now),
                    now,
                    self._retention.keep(label, now),
                    after=live.head,
                )
        except VersionConflict:
            return False
        live.moved(events, blobs, live.state, now)
        self._metrics.labelled(self._metrics.history_losses, engine.kind, str(loss.reused).lower()).inc()
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
