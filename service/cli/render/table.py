"""Plain-text lines for what happens around the table (game_pb2.TableEvent), the same
for every game: players joining and leaving, turns timed out, bots standing in."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.v1 import game_pb2


def describe_table(change: game_pb2.TableEvent, seats: Sequence[game_pb2.Seat]) -> str:
    which = change.WhichOneof("change")
    if which == "joined":
        joined = change.joined
        who = f"{joined.name} (a {joined.bot} bot)" if joined.bot else joined.name
        return f"{who} takes seat {joined.seat + 1}."
    if which == "left":
        return f"{_name(seats, change.left.seat)} leaves seat {change.left.seat + 1}."
    if which == "timed_out":
        timed_out = change.timed_out
        row = f" ({timed_out.missed_turns} turns in a row)" if timed_out.missed_turns > 1 else ""
        return f"{_name(seats, timed_out.seat)}'s time ran out{row}: a bot plays the turn."
    if which == "taken_over":
        taken = change.taken_over
        return f"The {taken.bot} bot plays for {_name(seats, taken.seat)} from now on."
    if which == "handed_back":
        return f"{_name(seats, change.handed_back.seat)} plays again."
    return "Something happened around the table."


def _name(seats: Sequence[game_pb2.Seat], seat: int) -> str:
    name = seats[seat].name if seat < len(seats) else ""
    return name or f"Seat {seat + 1}"
