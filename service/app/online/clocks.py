"""Turn clocks: the option's limits, the shared schedule of deadlines, and the worker
that plays for a seat whose time ran out.

The schedule: after every change a process stores in a game with a clock, it puts the
game's next deadline in the store's schedule, keyed by the game and the version the
deadline is for ("<game_id>/<version>"), and takes the previous version's out. Every
server process runs a worker that reads the schedule every `interval` seconds. For
each entry due, it loads the game; if the game still stands at that version and the
deadline has passed, it plays the timeout: a TurnTimedOut table event, then the seat's
stand-in bot plays until the game no longer waits for the seat (after TurnClock.
take_over_after timeouts in a row, a SeatTakenOver comes first and the bot keeps the
seat), then the other bots. The whole is appended at that version with the store's
compare-and-set, so of all the processes that see the deadline one plays it, once.

Entries live in the store, so deadlines survive a restart (with Redis) and any process
fires them. An entry whose version has passed is dropped after the game's current
deadline is scheduled: should a process die between storing a move and scheduling its
deadline, the timeout fires at the latest when the previous deadline was due."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping

from ludotheque.v1 import game_pb2

from service.app.access.creators import recorded_creator
from service.app.access.kit import Kit, UseCase
from service.app.model.errors import Code, ServiceError, invalid_argument
from service.app.model.live_game import LiveGame
from service.app.model.stored import store_errors
from service.app.model.table import table_event
from service.app.moves.steps import Step, play_bots
from service.app.moves.table_changes import Change, TableChanges
from service.app.observe import request_context
from service.store.base import Coordination, StoreUnavailable

log = logging.getLogger(__name__)

MAX_TURN_SECONDS = 86_400  # a day
MAX_BANK_SECONDS = 604_800  # a week
MAX_TAKE_OVER_AFTER = 100
BATCH = 100  # entries read from the schedule at a time
# An entry for a version the game has not reached: a move whose store write never
# landed, or one still on its way. Looked at again this much later.
RECHECK_MS = 5000


def validate_clock(clock: game_pb2.TurnClock) -> game_pb2.TurnClock:
    """The clock option as asked, if in range; else INVALID_ARGUMENT naming the field."""
    if clock.turn_seconds > MAX_TURN_SECONDS:
        raise invalid_argument(
            "clock.turn_seconds", f"turn_seconds is 1 to {MAX_TURN_SECONDS} (a day), not {clock.turn_seconds}."
        )
    if clock.bank_seconds > MAX_BANK_SECONDS:
        raise invalid_argument(
            "clock.bank_seconds", f"bank_seconds is 0 to {MAX_BANK_SECONDS} (a week), not {clock.bank_seconds}."
        )
    if not clock.turn_seconds and not clock.bank_seconds:
        raise invalid_argument("clock", "A turn clock needs turn_seconds, bank_seconds or both.")
    if clock.take_over_after > MAX_TAKE_OVER_AFTER:
        raise invalid_argument(
            "clock.take_over_after",
            f"take_over_after is 1 to {MAX_TAKE_OVER_AFTER} turns (0: never), not {clock.take_over_after}.",
        )
    return clock


def schedule_key(game_id: str, version: int) -> str:
    return f"{game_id}/{version}"


class ClockSchedule:
    """Keeps each clocked game's next deadline in the store's schedule."""

    def __init__(self, coordination: Coordination) -> None:
        self._coordination = coordination

    async def scheduled(self, live: LiveGame, previous_version: int) -> None:
        """After a change took the game from previous_version to its version: schedules
        its deadline, then drops the previous one. Store failures are logged, not
        raised: the change is stored, and the previous entry, left in place, gets the
        game looked at again when it is due."""
        clock = live.table.clock
        if clock is None:
            return
        coordination = self._coordination
        deadline = None if live.status.finished else clock.next_deadline()
        try:
            if deadline is not None:
                await coordination.schedule(schedule_key(live.game_id, live.version), deadline[0])
            if previous_version != live.version:
                await coordination.unschedule(schedule_key(live.game_id, previous_version))
        except StoreUnavailable as error:
            log.warning("game %s: its turn clock's deadline is not scheduled yet: %s", live.game_id, error)


class ClockWorker(UseCase):
    """Plays the timeouts that are due (one worker per server process)."""

    def __init__(
        self,
        kit: Kit,
        changes: TableChanges,
        schedule: ClockSchedule,
        coordination: Coordination,
        others: Mapping[str, Callable[[str], Awaitable[int]]] | None = None,
    ) -> None:
        """`others`: the other deadlines kept in the schedule, "<game_id>/<name>": what
        settles one due, by name (a quick match's bots: tables/quick_match.py)."""
        super().__init__(kit)
        self._changes = changes
        self._schedule = schedule
        self._coordination = coordination
        self._others = dict(others or {})

    async def run(self, interval: float, stop: asyncio.Event) -> None:
        """Looks at the schedule every `interval` seconds until `stop`."""
        while not stop.is_set():
            try:
                await self.fire_due()
            except StoreUnavailable as error:
                log.debug("turn clocks: %s", error)  # the store is down: readiness says so already
            except ServiceError as error:
                if error.code is not Code.UNAVAILABLE:
                    log.exception("turn clocks: the worker failed; it goes on")
                log.debug("turn clocks: %s", error.message)  # a shard down: the store's own log says so
            except Exception:
                log.exception("turn clocks: the worker failed; it goes on")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)

    async def fire_due(self) -> int:
        """Settles every entry due now; how many timeouts it played."""
        fired = 0
        while True:
            now = self._now_ms()
            with store_errors():
                due = await self._coordination.due(now, BATCH)
            for key, _ in due:
                # The worker's own "request" per deadline: its log lines (and its trace,
                # when sampled) name the game.
                fields = request_context.RequestFields(
                    request_id=request_context.new_request_id(),
                    transport="clock",
                    method="TurnTimeout",
                    game_id=key.rpartition("/")[0],
                )
                with request_context.begin(fields):
                    try:
                        fired += await self._settle(key, now)
                    except ServiceError as error:
                        if error.code is Code.UNAVAILABLE:
                            raise StoreUnavailable(error.message) from error
                        log.warning("turn clocks: %s: %s", key, error.message)
                        await self._coordination.unschedule(key)  # a game that cannot be played
            if len(due) < BATCH:
                return fired

    async def _settle(self, key: str, now: int) -> int:
        game_id, _, version_text = key.rpartition("/")
        if version_text in self._others:
            return await self._others[version_text](game_id)
        if not version_text.isdigit():
            await self._coordination.unschedule(key)
            return 0
        version = int(version_text)
        try:
            live = await self._games.load(game_id)
        except ServiceError as error:
            if error.code is not Code.NOT_FOUND:
                raise
            await self._coordination.unschedule(key)
            return 0
        if live.version < version:
            await self._coordination.schedule(key, now + RECHECK_MS)
            return 0
        clock = live.table.clock
        deadline = clock.next_deadline() if clock is not None and not live.status.finished else None
        if live.version > version or deadline is None:
            await self._schedule.scheduled(live, version)  # the game's deadline now, and this one dropped
            return 0
        if deadline[0] > now:
            await self._coordination.schedule(key, deadline[0])
            return 0
        live, events = await self._changes.make(game_id, lambda game: self._timeout(game, version))
        if not events:  # played by another process, or moved meanwhile
            await self._schedule.scheduled(live, version)
            return 0
        kind = live.engine.kind
        self._metrics.labelled(self._metrics.clock_timeouts, kind).inc()
        if any(e.table.WhichOneof("change") == "taken_over" for e in events if e.HasField("table")):
            self._metrics.labelled(self._metrics.take_overs, kind, "missed_turns").inc()
        return 1

    async def _may_leave(self, live: LiveGame, seat: int) -> bool:
        """Whether a bot may keep the seat: always, unless it is the last player's and its
        creator may not have a game of bots only (limits.py). Then the stand-in plays each
        of the seat's turns as they time out, no more: the clock paces the game."""
        if live.table.clocked != [seat]:
            return True
        try:
            await self._quotas.admit_bots_only(recorded_creator(live.record.created_by), live.game_id)
        except ServiceError as refused:
            if refused.code not in (Code.PERMISSION_DENIED, Code.RESOURCE_EXHAUSTED):
                raise
            return False
        return True

    async def _timeout(self, live: LiveGame, version: int) -> Change | None:
        """The seat's time ran out at `version`: its stand-in plays its turn."""
        clock = live.table.clock
        deadline = clock.next_deadline() if clock is not None and live.version == version else None
        if clock is None or deadline is None or deadline[0] > self._now_ms() or live.status.finished:
            return None
        seat = deadline[1]
        table = live.table
        missed = clock.times[seat].missed + 1
        stand_in = table.stand_in(seat)
        changes = [table_event(timed_out=game_pb2.TurnTimedOut(seat=seat, missed_turns=missed))]
        bots = dict(table.bots)
        turn: dict[int, str] = {seat: stand_in}
        if (
            clock.settings.take_over_after
            and missed >= clock.settings.take_over_after
            and await self._may_leave(live, seat)
        ):
            reason = game_pb2.TAKE_OVER_REASON_MISSED_TURNS
            changes.append(table_event(taken_over=game_pb2.SeatTakenOver(seat=seat, bot=stand_in, reason=reason)))
            bots[seat] = stand_in
        at = version + len(changes)
        # The seat's turn, to its end; then the bots' after it.
        state, stand_in_steps = await play_bots(live, live.state, at, turn, choices=self._bots)
        at += sum(len(step.payloads) for step in stand_in_steps)
        state, bot_steps = await play_bots(live, state, at, bots, choices=self._bots)
        return Change([Step(None, None, list(changes)), *stand_in_steps, *bot_steps], state, f"table/timeout-{version}")
