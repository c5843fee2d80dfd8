"""A game's `evolve` made of one rule per kind of event: the dispatch every engine's
rules share (each game's rules.py lists its rules, as its decide lists its commands).

An event is its game's Event message, whose oneof `kind` holds one message (card_drawn:
a CardDrawn...); the rule of that kind gets the state and that message and gives the
next state. A kind without a rule is one this rules version does not know: it changes
nothing. A stopped game (engines/limits.py) stays as it is, whatever follows."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from google.protobuf.message import Message

from engines.limits import Stopped

S = TypeVar("S")
E = TypeVar("E", bound=Message)

Rule = Callable[[S, Any], S]  # (state, the event's message of the rule's kind) -> the next state


def by_kind(event_type: type[E], rules: Mapping[str, Rule[S]]) -> Callable[[S, E], S]:
    """`evolve(state, event)`: the rule of the event's kind, from `rules` (by the name of
    the oneof field: "card_drawn"), applied to the event's message of that kind."""
    kinds = {field.name for field in event_type.DESCRIPTOR.oneofs_by_name["kind"].fields}
    if not set(rules) <= kinds:
        raise ValueError(f"{event_type.DESCRIPTOR.full_name} has no kind {sorted(set(rules) - kinds)}")
    rule_of: dict[str | None, Rule[S]] = {kind: rule for kind, rule in rules.items()}
    kind_of = event_type.WhichOneof  # the class's: asked of an event, the method costs a field lookup first

    def evolve(state: S, event: E) -> S:
        if isinstance(state, Stopped):
            return state
        kind = kind_of(event, "kind")
        rule = rule_of.get(kind)
        return state if rule is None else rule(state, getattr(event, kind))

    return evolve
