"""Commands and events print as a person reads them: `print(command)` says the move
("Draw from the left pile (Spider showing)"), `print(event)` its version and what
happened ("3: Cléo draws from the right pile."), in the client's language, from the
`description` the service sends with each. Without one (a command you made yourself, a
game's own message), they print on one line, every field named, default values too
(`mooki: {"draw": {"pile": 0}}`), not over several lines that leave out a 0.

Installed when `ludotheque` is imported, on the envelopes `ludotheque.v1.Command` and
`Event` and on each game's own Command and Event. Only `str()` changes: `repr()`, the
text format and every other message are protobuf's own."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from ludotheque.v1 import game_pb2


def one_line(message: Message) -> str:
    """The message on one line: its fields by their proto names, default values too."""
    fields = json_format.MessageToDict(
        message, always_print_fields_with_no_presence=True, preserving_proto_field_name=True
    )
    return json.dumps(fields, ensure_ascii=False)


def command_text(command: game_pb2.Command) -> str:
    """A command as its description says it, else `<kind>: <the move on one line>`."""
    if command.description.text:
        return str(command.description.text)
    kind = command.WhichOneof("game")
    return f"{kind}: {one_line(getattr(command, kind))}" if kind else one_line(command)


def event_text(event: game_pb2.Event) -> str:
    """An event as `<version>: <its description>`, else the event on one line."""
    if event.description.text:
        return f"{event.version}: {event.description.text}"
    kind = event.WhichOneof("game")
    if kind is not None:
        return f"{event.version}: {kind}: {one_line(getattr(event, kind))}"
    if event.HasField("table"):
        return f"{event.version}: table: {one_line(event.table)}"
    return f"{event.version}: {one_line(event)}"


def install() -> None:
    """Gives the envelopes and each game's Command and Event their readable str()."""
    readable: dict[type[Any], Any] = {game_pb2.Command: command_text, game_pb2.Event: event_text}
    for envelope in (game_pb2.Command, game_pb2.Event):
        for field in envelope.DESCRIPTOR.oneofs_by_name["game"].fields:
            assert field.message_type is not None  # each game's case is a message of that game
            readable[GetMessageClass(field.message_type)] = one_line
    for message_class, text in readable.items():
        message_class.__str__ = text
