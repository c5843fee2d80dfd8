"""Words for people without a language: what a move or an event means, as a message
key and its arguments, and the steps that pick a move among the legal ones.

Engines say what things mean (engines/<kind>/describe.py); the service renders the
phrases in the caller's language from the message catalogs of seeds/locales/ and
seeds/<kind>/locales/ (service/app/words/catalogs.py). Nothing here knows a language."""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar


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
    card, a colour), `value` is what programs read (DescriptionArg.value).
    `personal`: it names a seat (its text depends on the players' names); one that
    does not reads the same in every game, so the service renders it once."""

    key: str
    args: tuple[tuple[str, Arg], ...] = ()
    value: str = ""
    personal: bool = field(init=False, compare=False)
    _hash: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        personal = False
        for _, arg in self.args:
            if _personal(arg):
                personal = True
                break
        object.__setattr__(self, "personal", personal)
        object.__setattr__(self, "_hash", 0)

    def __hash__(self) -> int:
        # Phrases are looked up in caches on every answer: the hash is computed once.
        if not self._hash:
            object.__setattr__(self, "_hash", hash((self.key, self.args, self.value)) or 1)
        return self._hash


def _personal(arg: Arg) -> bool:
    if isinstance(arg, SeatArg):
        return True
    if isinstance(arg, Phrase):
        return arg.personal
    if isinstance(arg, ListArg):
        return any(item.personal for item in arg.items)
    return False


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
    """A legal command for people: what it does, and the steps that pick it.
    `personal`: its words name a seat (see Phrase)."""

    phrase: Phrase
    steps: tuple[Step, ...]
    personal: bool = field(init=False, compare=False)
    _hash: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        personal = self.phrase.personal or any(step.label.personal for step in self.steps)
        object.__setattr__(self, "personal", personal)
        object.__setattr__(self, "_hash", 0)

    def __hash__(self) -> int:
        if not self._hash:
            object.__setattr__(self, "_hash", hash((self.phrase, self.steps)) or 1)
        return self._hash


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """Immutable words (phrases, described moves) by the facts they are made of: a game
    asks for the same ones answer after answer, and the service renders each once
    (service/app/words/catalogs.py). Bounded: emptied when full."""

    def __init__(self, size: int = 4096) -> None:
        self._items: dict[K, V] = {}
        self._size = size

    def get(self, key: K, make: Callable[[], V]) -> V:
        found = self._items.get(key)
        if found is None:
            if len(self._items) >= self._size:
                self._items.clear()
            found = self._items[key] = make()
        return found


def ties(keys: Sequence[Hashable]) -> list[bool]:
    """For each key, whether another has the same (two moves whose steps would be the
    same: one more step must tell them apart)."""
    counts: dict[Hashable, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return [counts[key] > 1 for key in keys]


def action_step(name: str, label: Phrase) -> Step:
    """The step of a move that acts on nothing more: `name` is the command's field
    in the proto3 JSON mapping (e.g. "endTurn")."""
    return Step(StepRole.ACTION, "action", name, label)
