"""Appending a decision, retried: the loop that decides on the cached game, has the
writer (writer.py, the one writer of a game's events) store it with the store's
compare-and-set on the version it was decided at, and on a conflict catches up and
decides again; answered once per key.

Moves (a seat's command) and table changes (a join, a timeout, a take-over...) both
hand `Appends.append` a `Decide`: an async function of the live game that returns the
steps to store (or None: nothing to do), or raises ServiceError to refuse. The loop:

1. a loss of the game's history this process found and could not record yet is
   recorded first (LossChecks.settle: UNAVAILABLE while it cannot be); then decide on
   the cached game (no read of the store first: the append's compare-and-set finds
   out when another process moved it), again if a read caught the game up meanwhile;
2. refused: the key already stored answers its first result whatever the game is now;
   else, if the cache was behind, catch up and decide again; else the refusal stands;
3. the writer stamps the steps' events and appends them on `live.version` and
   `live.head` (and, once stored, moves the cached game on, keeps its snapshots, tells
   the turn clocks' schedule, counts a game that ended);
4. a `VersionConflict`: another process moved first (catch up, decide again) or the
   store lost versions (rebuild from it, record the loss, decide again);
   `CountersChanged`: a seat token was rotated somewhere (take the counters anew and
   let the caller check its token again); after `max_retries` of these the caller is
   told `ABORTED` and operators see a conflict storm (a metric and a log line);
5. the key stored already (here, or by another process): `replayed`, nothing stored."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from service.app.model.errors import Code, ServiceError
from service.app.model.live import LiveGames
from service.app.model.live_game import LiveGame
from service.app.model.stored import store_errors
from service.app.moves.writer import Appended, Decision, Writer
from service.app.observe import tracing
from service.app.observe.metrics import Metrics
from service.store.base import CountersChanged, VersionConflict

log = logging.getLogger(__name__)

TOO_FAST = "The game is changing too fast: try again."


# Decides on the game as it stands: the steps to append, or None when there is nothing
# to do (any more). Raises ServiceError to refuse.
Decide = Callable[[LiveGame], Awaitable[Decision | None]]
# Looks again at the caller's right to go on, once the game was caught up (a token
# rotated meanwhile, a seat a bot took over): raises ServiceError to stop.
Recheck = Callable[[LiveGame], None]


NOTHING = Appended([], 0, 0)


def _keep_going(live: LiveGame) -> None:
    """The default Recheck: a decision that checks everything itself."""


class Appends:
    def __init__(
        self, games: LiveGames, writer: Writer, metrics: Metrics, now_ms: Callable[[], int], max_retries: int
    ) -> None:
        self._games = games
        self._writer = writer
        self.metrics = self._metrics = metrics
        self._now_ms = now_ms
        self._max_retries = max_retries

    async def append(
        self,
        live: LiveGame,
        decide: Decide,
        recheck: Recheck = _keep_going,
        *,
        key: str = "",
        fingerprint: bytes = b"",
    ) -> Appended:
        """Decides and appends, under the game's lock (the caller holds it). `key` and
        `fingerprint`, when the request names itself before deciding (a command id),
        let a refusal find the first answer of a request played already."""
        games = self._games
        for _ in range(self._max_retries):
            if games.checks.owed:  # a loss this process found and could not record yet: recorded first
                await games.checks.settle(live)
            base = live.version
            try:
                with tracing.span("decide", version=base):
                    decision = await decide(live)
            except ServiceError:
                previous = None
                if key:
                    with store_errors():
                        previous = await games.store.find_command(live.game_id, key, fingerprint)
                if previous is not None:  # played already: its first answer, whatever the game is now
                    return Appended([], previous.first_version, previous.last_version, replayed=True)
                moved = await games.caught_up(live)
                recheck(live)
                if moved:  # the refusal was decided on a cache behind the store
                    continue
                raise
            if decision is None:
                return NOTHING
            if live.version != base:  # a read of this process caught the game up meanwhile
                recheck(live)
                continue
            try:
                return await self._writer.append(live, decision, self._now_ms())
            except VersionConflict as conflict:
                self._metrics.labelled(self._metrics.append_conflicts, live.engine.kind).inc()
                if conflict.current < live.version:
                    await games.checks.store_behind(live)  # the store lost versions: it is the truth
                else:
                    await games.refresh(live)  # another process moved first: catch up, decide again
            except CountersChanged:  # a seat token was rotated (on any process)
                await games.repository.reload_counters(live)
            recheck(live)
        self._metrics.labelled(self._metrics.conflict_storms, live.engine.kind).inc()
        log.warning(
            "game %s: a change conflicted %d times in a row with other writers and gave up (ABORTED)",
            live.game_id,
            self._max_retries,
        )
        raise ServiceError(Code.ABORTED, TOO_FAST)
