"""Any game's view in plain text, for a game that registers no text renderer of its
own: each field the view sets as a labelled line ("Draw pile size: 12"), enum values
by their names ("PHASE_PLAYING": playing), seats by their players' names, nested
messages indented under their label, a field the game lays out as a grid
(`(ludotheque.text.v1.grid_columns)`) as rows. Correct for every game, pretty for none."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from ludotheque.text.v1 import grid_pb2
from ludotheque.v1 import game_pb2

INDENT = "  "


def render_view(view: Message, seats: Sequence[game_pb2.Seat], me: int | None) -> str:
    return "\n".join(_lines(view, seats, me, 0)) or "(nothing to see yet)"


def _lines(message: Message, seats: Sequence[game_pb2.Seat], me: int | None, depth: int) -> list[str]:
    lines: list[str] = []
    for field, value in message.ListFields():
        label = f"{INDENT * depth}{field.name.replace('_', ' ').capitalize()}"
        values = list(value) if field.is_repeated else [value]
        columns = field.GetOptions().Extensions[grid_pb2.grid_columns] if field.is_repeated else 0
        if columns and field.message_type is None:
            squares = [_scalar(field, item, seats, me) if item else "·" for item in values]  # zero: empty
            lines.append(f"{label}:")
            lines += [
                f"{INDENT * (depth + 1)}{' '.join(squares[at : at + columns])}"
                for at in range(0, len(squares), columns)
            ]
        elif field.message_type is not None:
            for item in values:
                inner = _lines(item, seats, me, depth + 1)
                lines.append(f"{label}:" if inner else f"{label}: (empty)")
                lines += inner
        else:
            lines.append(f"{label}: {', '.join(_scalar(field, item, seats, me) for item in values)}")
    return lines


def _scalar(field: FieldDescriptor, value: Any, seats: Sequence[game_pb2.Seat], me: int | None) -> str:
    if field.enum_type is not None:
        known = field.enum_type.values_by_number.get(value)
        if known is None:
            return str(value)
        prefix = field.enum_type.values[0].name.removesuffix("UNSPECIFIED")  # "PHASE_"
        return known.name.removeprefix(prefix).replace("_", " ").lower()
    if field.name == "seat" or field.name.endswith("_seat"):
        name = seats[value].name if 0 <= value < len(seats) else ""
        return (name or f"Player {value + 1}") + (" (you)" if value == me else "")  # people count from 1
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
