"""The one way events are appended: a decision stamped, stored with the store's
compare-and-set on the version it was decided at, caught up and decided again on a
conflict, answered once per key, and counted.

Moves (a seat's command) and table changes (a join, a timeout, a take-over...) both
hand `Appends.append` a `Decide`: an async function of the live game that returns the
steps to store (or None: nothing to do), or raises ServiceError to refuse. The loop:

1. a loss of the game's history this process found and could not record yet is
   recorded first (LossChecks.settle: UNAVAILABLE while it cannot be); then decide on
   the cached game (no read of the store first: the append's compare-and-set finds
   out when another process moved it), again if a read caught the game up meanwhile;
2. refused: the key already stored answers its first result whatever the game is now;
   else, if the cache was behind, catch up and decide again; else the refusal stands;
3. stamp the steps' events, then append them on `live.version` and `live.head`;
4. a `VersionConflict`: another process moved first (catch up, decide again) or the
   store lost versions (rebuild from it, record the loss, decide again);
   `CountersChanged`: a seat token was rotated somewhere (take the counters anew and
   let the caller check its token again); after `max_retries` of these the caller is
   told `ABORTED` and operators see a conflict storm (a metric and a log line);
5. the key stored already (here, or by another process): `replayed`, nothing stored;
6. stored: the cached game moves on, its snapshots are kept, the turn clocks'
   schedule hears of it, and a game that ended is counted."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ludotheque.v1 import game_pb2

from service.app.access.limits import Quotas
from service.app.keeping.retention import RetentionPolicy
from service.app.model.errors import Code, ServiceError
from service.app.model.live import LiveGames
from service.app.model.live_game import LiveGame
from service.app.model.snapshots import checkpoints
from service.app.model.stored import store_errors
from service.app.moves.steps import Slices, Step, serialized, stamp
from service.app.observe import tracing
from service.app.observe.metrics import Metrics
from service.app.views.views import STATUS_NAMES, status_code, summary, summary_bytes
from service.store.base import CountersChanged, VersionConflict

log = logging.getLogger(__name__)

TOO_FAST = "The game is changing too fast: try again."


@dataclass(frozen=True, slots=True)
class Decision:
    """What to append: the steps (a command's then its bots', or a table change's),
    the game's state after them, the key that makes them happen once ("<seat>/<command
    id>" or "table/<change>": the events carry what follows the '/' as their command
    id) and the fingerprint that tells a replay of the key from a different request
    reusing it."""

    steps: list[Step]
    state: Any
    key: str
    fingerprint: bytes

    @property
    def command_id(self) -> str:
        return self.key.split("/", 1)[1]

    @property
    def changes_table(self) -> bool:
        return any(isinstance(p, game_pb2.TableEvent) for step in self.steps for p in step.payloads)


# Decides on the game as it stands: the steps to append, or None when there is nothing
# to do (any more). Raises ServiceError to refuse.
Decide = Callable[[LiveGame], Awaitable[Decision | None]]
# Looks again at the caller's right to go on, once the game was caught up (a token
# rotated meanwhile, a seat a bot took over): raises ServiceError to stop.
Recheck = Callable[[LiveGame], None]


@dataclass(frozen=True, slots=True)
class Appended:
    """What an append did: the events stored (none when there was nothing to do, or
    when the key was stored already: `replayed`), versions first..last."""

    events: list[game_pb2.Event]
    first_version: int
    last_version: int
    replayed: bool = False


NOTHING = Appended([], 0, 0)


def _keep_going(live: LiveGame) -> None:
    """The default Recheck: a decision that checks everything itself."""


class Appends:
    def __init__(
        self,
        games: LiveGames,
        metrics: Metrics,
        now_ms: Callable[[], int],
        max_retries: int,
        quotas: Quotas,
        retention: RetentionPolicy,
        on_moved: Callable[[LiveGame, int], Awaitable[None]],
    ) -> None:
        self._games = games
        self.metrics = self._metrics = metrics
        self._now_ms = now_ms
        self._max_retries = max_retries
        self._quotas = quotas
        self._retention = retention
        self._on_moved = on_moved  # after each append this process stored (the turn clocks' schedule)

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
                return await self._store(live, decision)
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

    async def _store(self, live: LiveGame, decision: Decision) -> Appended:
        """Stamps and appends one decision on the version it was made at; raises what
        the store's compare-and-set raises."""
        base, head = live.version, live.in_store.head
        now = self._now_ms()
        finished = live.engine.status(decision.state).finished
        events = await stamp(live, base, decision.steps, decision.command_id, now, finished)
        stored = await serialized(events)
        ahead = await preview(live, events) if decision.changes_table else None
        label, game_summary = self._summary(live, decision, ahead, len(events), now)
        # Before the append: a follower may be handed these events before it returns.
        live.traced_move = tracing.this_move(base + 1, base + len(events))
        try:
            with store_errors(), tracing.span("append", expected_version=base):
                result = await self._games.store.append(
                    live.game_id,
                    base,
                    stored,
                    decision.key,
                    decision.fingerprint,
                    label,
                    game_summary,
                    now,
                    self._retention.keep(label, now),
                    after=head,  # never build on a history this cache did not see
                    counters_revision=live.in_store.counters_revision,
                )
        except BaseException:
            live.traced_move = None
            raise
        if result.replayed:  # the key was stored already (here, or on another process)
            live.traced_move = None
            return Appended([], result.first_version, result.last_version, replayed=True)
        if ahead is not None and live.version == base:
            _take(live, ahead, stored)  # the change as previewed: its events are not folded twice
        else:
            live.moved(events, stored, decision.state, now)
        self._games.repository.keep_snapshots(live, checkpoints(decision.steps, result.first_version, stored))
        await self._on_moved(live, base)
        if finished:
            self._metrics.game_finished(live.engine.kind, bool(live.engine.status(decision.state).winners))
            await self._quotas.game_over(live.record.created_by, live.game_id)
        return Appended(events, result.first_version, result.last_version)

    @staticmethod
    def _summary(live: LiveGame, decision: Decision, ahead: LiveGame | None, count: int, now: int) -> tuple[str, bytes]:
        """The game's status label and summary for listings once the decision's `count`
        events are stored. A change of the table is previewed on a copy of the game
        (`ahead`: the seats change too); a move keeps the seats and reuses their
        encoding (views.summary_bytes)."""
        if ahead is not None:
            return STATUS_NAMES[status_code(ahead.status, ahead.table.started)], summary(ahead).SerializeToString()
        status = live.engine.status(decision.state)
        label = STATUS_NAMES[status_code(status)]
        return label, summary_bytes(live, status, live.version + count, now, decision.state)


async def preview(live: LiveGame, events: Sequence[game_pb2.Event]) -> LiveGame:
    """The game as it will be once `events` are stored (the live game is left alone),
    handing the event loop back in a long chain (a take-over playing a game out)."""
    ahead = LiveGame(live.record, live.engine, live.state, live.version, live.updated_at_ms)
    ahead.table, ahead.losses, ahead.event_limit = live.table.clone(), list(live.losses), live.event_limit
    slices = Slices()
    for event in events:
        ahead.apply(event)
        await slices.tick()
    return ahead


def _take(live: LiveGame, ahead: LiveGame, stored: Sequence[bytes]) -> None:
    """The live game moves on to its preview once its events are stored (what
    LiveGame.moved would fold again, event by event): state, table, losses."""
    first = live.version + 1
    live.state, live.version, live.updated_at_ms = ahead.state, ahead.version, ahead.updated_at_ms
    live.table, live.losses = ahead.table, ahead.losses
    live.mark(first, stored)
