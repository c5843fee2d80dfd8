"""Whether a table event of a log makes sense where it stands (verify.py): the rules of
the table, as the service plays them, checked against the table the events before it
left."""

from __future__ import annotations

from typing import Any

from ludotheque.v1 import game_pb2

from engines.registry import AnyEngine
from service.app.model.table import Table


def table_problem(table: Table, engine: AnyEngine, state: Any, event: game_pb2.Event) -> str | None:
    """What is wrong with `event` (a table event) after `table` and `state`; None if nothing."""
    change = event.table
    which = change.WhichOneof("change")
    seat: int = getattr(change, which).seat if which else 0
    if which is None:
        return "a table event that says nothing"
    if seat >= len(table.seats):
        return f"there is no seat {seat}"
    current = table.seats[seat]
    status = engine.status(state)
    if which in ("joined", "left"):
        if table.started:
            return f"a seat cannot be {which} once the game is dealt"
        if which == "joined" and not current.open:
            return f"seat {seat} is taken"
        joined = change.joined
        if which == "joined" and (not joined.name or (joined.bot and joined.bot not in engine.bots)):
            return "a player joins with a name (and a bot with a known one)"
        if which == "left" and (current.open or current.bot):
            return f"nobody sits at seat {seat} to leave it"
        return None
    if not table.started or status.finished:
        return "a turn times out, and a seat is taken over or handed back, only while the game is played"
    if current.bot:
        return f"seat {seat} is a bot's"
    if which == "timed_out":
        clock = table.clock
        deadline = clock.deadline(seat) if clock is not None and not current.taken_over_by else None
        if clock is None or deadline is None:
            return f"the game was not waiting for seat {seat} on a clock"
        if event.recorded_at.ToMilliseconds() < deadline:
            return f"seat {seat}'s time had not run out (it runs out at {deadline} ms)"
        missed = clock.times[seat].missed
        if change.timed_out.missed_turns != missed + 1:
            return f"seat {seat} had missed {missed} turns in a row, not {change.timed_out.missed_turns - 1}"
        return None
    if which == "taken_over":
        taken = change.taken_over
        if taken.bot not in engine.bots:
            return f"there is no bot {taken.bot!r}"
        if taken.reason == game_pb2.TAKE_OVER_REASON_MISSED_TURNS:
            clock = table.clock
            if clock is None or not clock.settings.take_over_after:
                return "the clock takes a seat over only when the game's clock says so"
            if not clock.times[seat].timed_out or clock.times[seat].missed < clock.settings.take_over_after:
                return f"seat {seat} had not missed {clock.settings.take_over_after} turns in a row"
        return None
    if not current.taken_over_by:  # handed_back
        return f"no bot plays seat {seat}: there is nothing to hand back"
    return None
