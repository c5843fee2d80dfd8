"""Words for people without a language: what a move or an event means, as a message
key and its arguments, and the steps that pick a move among the legal ones.

Engines say what things mean (engines/<kind>/describe.py); the service renders the
phrases in the caller's language from the message catalogs of seeds/locales/
(service/app/catalogs.py). Nothing here knows a language."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SeatArg:
    """A seat, shown as its player's name; its value is the seat's index."""

    index: int


@dataclass(frozen=True, slots=True)
class NumberArg:
    """A number. An argument named "count" also chooses a message's plural form."""

    value: int


@dataclass(frozen=True, slots=True)
class TextArg:
    """Words that no language changes: a space's name ("C4"), a route ("A4 > B4")."""

    value: str
    text: str


@dataclass(frozen=True, slots=True)
class ListArg:
    """Several phrases shown as a list ("Rabbit, Squirrel and Frog")."""

    items: tuple[Phrase, ...]

    @property
    def value(self) -> str:
        return ",".join(item.value for item in self.items)


@dataclass(frozen=True, slots=True)
class Phrase:
    """A message key and its arguments. Used as an argument of another phrase (a
    card, a colour), `value` is what programs read (DescriptionArg.value)."""

    key: str
    args: tuple[tuple[str, Arg], ...] = ()
    value: str = ""


Arg = SeatArg | NumberArg | TextArg | ListArg | Phrase


def phrase(key: str, value: str = "", /, **args: Arg) -> Phrase:
    return Phrase(key, tuple(args.items()), value)


class StepRole(enum.Enum):
    """How a page offers a step (ludotheque.v1.ChoiceRole)."""

    ACTION = 1  # a button: the move itself
    PIECE = 2  # what the move acts on: a card, a pile, a tile, a piece
    DESTINATION = 3  # where it goes: a space
    OPTION = 4  # a setting of the move: a colour asked for, a call


@dataclass(frozen=True, slots=True)
class Step:
    """One step of picking a move: what is picked (`subject`), which one (`value`,
    stable), and its label."""

    role: StepRole
    subject: str
    value: str
    label: Phrase


@dataclass(frozen=True, slots=True)
class Described:
    """A legal command for people: what it does, and the steps that pick it."""

    phrase: Phrase
    steps: tuple[Step, ...]


def action_step(name: str, label: Phrase) -> Step:
    """The step of a move that acts on nothing more: `name` is the command's field
    in the proto3 JSON mapping (e.g. "endTurn")."""
    return Step(StepRole.ACTION, "action", name, label)


def disambiguate(described: list[Described], extra: Sequence[Step | None]) -> list[Described]:
    """Appends `extra[i]` to the steps of each command whose steps are the same as
    another's, so that every command's steps tell it apart (e.g. two routes that end
    on the same space). `extra[i]` must be set wherever a tie can happen."""
    counts: dict[tuple[tuple[str, str], ...], int] = {}
    keys = [tuple((step.subject, step.value) for step in item.steps) for item in described]
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    result = []
    for item, key, step in zip(described, keys, extra, strict=True):
        if counts[key] > 1 and step is not None:
            item = Described(item.phrase, (*item.steps, step))
        result.append(item)
    return result
