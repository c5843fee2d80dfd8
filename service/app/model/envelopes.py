"""Wrapping a game's own messages in the service's envelopes and back.

Every envelope (Command, Event, GameOptions, GameView) has a oneof `game` whose field
is named after the game's kind, so this works for every game without a table."""

from __future__ import annotations

from typing import TypeVar

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from service.app.model.errors import invalid_argument

M = TypeVar("M", bound=Message)


def unwrap(envelope: Message, kind: str, field: str, *, allow_empty: bool = False) -> Message:
    """The game payload of `envelope`, which must be for `kind`: otherwise the
    request is malformed (INVALID_ARGUMENT on `field`)."""
    which = envelope.WhichOneof("game")
    if which is None:
        raise invalid_argument(field, f"{field} is empty: it needs a {kind!r} message.")
    if which != kind:
        raise invalid_argument(field, f"{field} is for {which!r}, but this game is {kind!r}.")
    payload: Message = getattr(envelope, kind)
    if not allow_empty and not payload.ListFields():
        raise invalid_argument(field, f"{field}.{kind} is empty: it names no move or setting.")
    return payload


def wrap(envelope_type: type[M], kind: str, payload: Message) -> M:
    envelope = envelope_type()
    getattr(envelope, kind).CopyFrom(payload)
    return envelope


def command(kind: str, payload: Message) -> game_pb2.Command:
    return wrap(game_pb2.Command, kind, payload)


def view(kind: str, payload: Message) -> game_pb2.GameView:
    return wrap(game_pb2.GameView, kind, payload)


def options(kind: str, payload: Message) -> game_pb2.GameOptions:
    return wrap(game_pb2.GameOptions, kind, payload)


def event_payload(event: game_pb2.Event) -> Message:
    which = event.WhichOneof("game")
    if which is None:
        raise ValueError(f"event {event.version} has no payload")
    payload: Message = getattr(event, which)
    return payload
