"""A hint for a seat: the move the game's strongest bot would make for it now, and one
short reason, as a phrase (engines/phrases.py) the service words in the caller's
language. Both come from what the seat may know only: the bot reads only its seat's
knowledge (the property suite holds every bot to it), and so does the reason (each
game's `Describer.explain_hint`, engines/<kind>/hints.py: from the seat's view and what
the whole table saw), so two worlds the seat cannot tell apart give the same hint (tests/engines/test_hints.py)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from engines.contract import Viewer
from engines.describing import Describer
from engines.phrases import Phrase, phrase
from engines.registration import AnyEngine

# The bots a hint asks, best first: the strongest an engine has.
HINT_BOTS = ("strong", "greedy", "random")


@dataclass(frozen=True, slots=True)
class Hint:
    """The move suggested to a seat, why, and which bot chose it."""

    command: Message
    reason: Phrase
    bot: str


def hint_bot(engine: AnyEngine) -> str:
    """The name of the bot that gives `engine`'s hints: its strongest."""
    name = next((name for name in HINT_BOTS if name in engine.bots), None)
    if name is None:
        raise ValueError(f"{engine.kind} has none of the bots {HINT_BOTS}: it cannot give hints")
    return name


def explain(describer: Describer, state: Any, view: Message, seat: int, command: Message) -> Phrase:
    """Why `command` is good for `seat` in `state`, whose view is `view`: the game's own
    reason, else the move's words ("Try this: Put an X in the middle")."""
    if describer.explain_hint is not None:
        return describer.explain_hint(state, view, seat, command)
    return phrase("hint.generic", move=describer.describe_commands([command], view)[0].phrase)


def hint(engine: AnyEngine, describer: Describer, state: Any, seat: int, rng: random.Random) -> Hint:
    """The hint for `seat` (one of the seats to act) in `state`; `rng`: the bot's draws."""
    bot = hint_bot(engine)
    command = engine.bots[bot](state, seat, rng)
    view = engine.view(state, Viewer.player(seat))
    return Hint(command, explain(describer, state, view, seat, command), bot)
