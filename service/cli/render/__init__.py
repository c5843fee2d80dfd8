"""Plain-text rendering of each game's views, moves and events (`ludotheque play`,
and later `ludotheque replay`). One module per game, the same three functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from service.cli.render import mooki, picnic, pirates


class Renderer(Protocol):
    def render_view(self, view: Message, seats: Sequence[game_pb2.Seat], me: int | None) -> str: ...

    def describe_command(self, command: Message, view: Message) -> str: ...

    def describe_event(self, event: Message, seats: Sequence[game_pb2.Seat]) -> str | None: ...


RENDERERS: dict[str, Renderer] = {"mooki": mooki, "pirates": pirates, "picnic": picnic}  # type: ignore[dict-item]
