"""Plain-text drawing of each game's views (`ludotheque play`, `ludotheque replay`).
One module per game, the same function. Moves and events are told in the words every
client gets (their descriptions: service/app/views/descriptions.py), not here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from service.cli.render import mooki, picnic, pirates


class Renderer(Protocol):
    def render_view(self, view: Message, seats: Sequence[game_pb2.Seat], me: int | None) -> str: ...


RENDERERS: dict[str, Renderer] = {"mooki": mooki, "pirates": pirates, "picnic": picnic}  # type: ignore[dict-item]
