"""What each game says for people, beside its rules: its moves and events as phrases
(engines/<kind>/describe.py), its rule codes, its presets and its material (what the
pieces look like, engines/<kind>/material.py). Language-free, like the engines."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from engines.phrases import Described, Phrase


@dataclass(frozen=True, slots=True)
class Describer:
    kind: str
    # One phrase per event, computed from the event as the viewer may see it (redacted):
    # nothing else, so a description never tells more than the event.
    describe_event: Callable[[Any], Phrase]
    # How a finished game ended, from its view once it is over (every viewer's says it):
    # the words of the event that ended it. Its arguments are seats (named "seat") and
    # numbers only, so that a listing stored in one language is told again in another.
    describe_outcome: Callable[[Any], Phrase]
    # The legal commands of one answer, as the seat's (or the admin's) view explains them.
    describe_commands: Callable[[Sequence[Any], Any], list[Described]]
    # The oneof fields of the game's Event and Command that the two functions above
    # describe (a test checks that they cover the proto).
    event_kinds: frozenset[str]
    command_kinds: frozenset[str]
    # Every code a RuleViolation of the game may carry (a test checks the rules' source).
    rule_codes: tuple[str, ...]
    # The game's material (its <kind>.v1.Material message; descriptions carry keys only).
    material: Callable[[], Message]
    # Named sets of options: (name, the game's Options), each with its key
    # "<kind>.preset.<name>"; optional (none: the lobby offers the options alone).
    presets: Callable[[], Sequence[tuple[str, Message]]] = lambda: ()
    # Whether a seat sees something the other seats do not (a hand): GetGameKind says
    # so, and people sharing one screen pass it behind a curtain (tests/engines/
    # test_seat_secrets.py checks it against the views of random games).
    seat_secrets: bool = True
    # Why a hinted move is good, for the seat about to play it (GetHint, engines/hinting.py):
    # (the state, that seat's view of it, the seat, the command) -> one short phrase a
    # child understands. It reads only what the seat may know, as a bot does (its view,
    # and what the whole table saw: tests/engines/test_hints.py tries two worlds).
    # None: the generic reason, the move's own words ("hint.generic").
    explain_hint: Callable[[Any, Any, int, Any], Phrase] | None = None
