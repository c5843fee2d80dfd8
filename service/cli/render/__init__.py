"""Plain-text drawing of each game's views (`ludotheque play`, `ludotheque replay`):
the text renderer a game registers (engines/<kind>/text.py, engines/registration.py),
else the generic one (generic.py: the view's fields as labelled lines). Moves and
events are told in the words every client gets (their descriptions:
service/app/views/descriptions.py), not here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engines.registration import TextRenderer
from engines.registry import GAMES
from service.cli.render import generic


@dataclass(frozen=True, slots=True)
class Renderer:
    """How one kind's views read as text."""

    render_view: TextRenderer


GENERIC = Renderer(generic.render_view)

RENDERERS: Mapping[str, Renderer] = MappingProxyType(
    {kind: Renderer(game.render_view) if game.render_view else GENERIC for kind, game in GAMES.items()}
)


def renderer(kind: str) -> Renderer:
    """The kind's renderer; the generic one for a kind without one (or unknown here)."""
    return RENDERERS.get(kind, GENERIC)
