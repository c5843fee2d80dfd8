"""What a game folder registers: engines/<kind>/__init__.py exports one `GAME`, a
`Registration`, and that is all the server needs to play the kind. engines/registry.py
finds every such folder; the describers, the command line's text renderers, the
message catalogs (seeds/<kind>/locales/) and the test suite's tables all follow from
what is registered here, so a new game edits no shared file (docs/NEW_GAME.md).

A registration holds the engine (engines/adapter.py's `GameEngine`), its words
(engines/describing.py's `Describer`), its data files (engines/data.py), how its views
read as plain text (none: the command line's generic renderer), and a `Proof`: what
the property suite needs to know to prove the game (tests/support/engine_properties.py),
written beside the rules but never used by them."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from engines.contract import Engine, Viewer
from engines.data import GameData
from engines.describing import Describer

AnyEngine = Engine[Any, Any, Any, Any, Any]

S = TypeVar("S")
C = TypeVar("C", bound=Message)
V = TypeVar("V", bound=int)

if TYPE_CHECKING:  # the generated enums' wrapper, typed by the stubs only
    from google.protobuf.internal.enum_type_wrapper import _EnumTypeWrapper

# A view as plain text for `ludotheque play` and `ludotheque replay`: (the game's View,
# the seats, the reader's seat or None) -> lines of text.
TextRenderer = Callable[[Any, Sequence[game_pb2.Seat], int | None], str]
# How a test's random player picks among the legal commands: (state, seat, legal, rng).
Player = Callable[[S, int, list[C], random.Random], C]


def unknown_value(enum: _EnumTypeWrapper[V]) -> V:
    """A value the generated `enum` does not have, for a command universe's refused
    commands (a client may send any number)."""
    return cast(V, max(enum.values()) + 1)


@dataclass(frozen=True)
class Move(Generic[S, C]):
    """One command played, as `Proof.reveals` reads it."""

    before: S  # the state the command was decided in
    seat: int  # the seat that sent it
    command: C
    after: S  # the state once its events are applied


@dataclass(frozen=True)
class Proof(Generic[S, C]):
    """What the property suite checks a game against, from its rulebook rather than
    from its rules' code: at every step of random games, the conserved items are all
    there, the game ends exactly when `outcome` says, every legal command is accepted
    and every other command of `command_universe` refused, no viewer tells apart two
    states that `perturb` makes differ only in what it may not know, and a command
    tells a viewer nothing hidden beyond what `reveals` says it shows. A game that hides
    nothing (Tic-tac-toe) says so with `hides_nothing=True` instead of `perturb` and
    `reveals`: the suite then checks that every viewer sees what the admin sees, views
    and events alike, and everything else as for any game."""

    # The items that never appear or vanish (cards, tiles), wherever they are in a
    # state; an empty Counter for a game where nothing is conserved (marks drawn on a
    # grid appear with each move).
    inventory: Callable[[S], Counter[Hashable]]
    # Commands one could send in a state, legal and illegal alike.
    command_universe: Callable[[S], Sequence[C]]
    # The rulebook's end condition read from a state: None while the game goes on,
    # else the winning seats (none: everybody lost).
    outcome: Callable[[S], tuple[int, ...] | None]
    # The most events a game may have: a bound the rules guarantee (termination).
    max_events: int
    # Options worth a random game with that many seats (every option the suite should
    # try), drawn from the generator given.
    random_options: Callable[[random.Random, int], Message]
    # How the suite's random players choose (None: any legal command, uniformly).
    player: Player[S, C] | None = None
    # Options whose moves are many and varied (routes, calls, colours), for the words
    # tests (tests/engines/test_descriptions.py); none: the defaults.
    varied_options: tuple[Message, ...] = ()
    # Options that keep the service's test games short (a race to an island one space
    # away); None: the defaults are short enough.
    short_options: Message | None = None
    # A state that differs from the one given only in what the viewer may not know.
    perturb: Callable[[S, Viewer, random.Random], S] | None = None
    # What a move shows a viewer that the viewer may not have known, as the rulebook
    # says (the card it draws, a face turned up for all, what the end turns over), as
    # any value; None: nothing. From two states `perturb` made, the same move decided
    # with the same randomness, showing the viewer the same in both, must give it the
    # same events, in the same words, and the same view after.
    reveals: Callable[[Move[S, C], Viewer], Hashable] | None = None
    # Nothing is hidden from anyone (no deck, no hand, no secret in any event): then
    # neither `perturb` nor `reveals`, and the suite checks that it is so.
    hides_nothing: bool = False

    def __post_init__(self) -> None:
        secrets = (self.perturb, self.reveals)
        if self.hides_nothing and any(secrets):
            raise ValueError("a game that hides nothing has nothing to perturb or reveal: drop perturb and reveals")
        if not self.hides_nothing and not all(secrets):
            raise ValueError(
                "say what a viewer may not know (perturb) and what a move shows (reveals), "
                "or that the game hides nothing (hides_nothing=True)"
            )


@dataclass(frozen=True)
class Registration:
    """One kind of game, as engines/<kind>/__init__.py registers it."""

    engine: AnyEngine
    describer: Describer
    proof: Proof[Any, Any]
    # Its data files (seeds/<kind>/, pinned per rules version in seeds/<kind>/data-lock.json).
    data: GameData | None = None
    # Its views as plain text; None: the command line's generic renderer (service/cli/render/).
    render_view: TextRenderer | None = None
    # How many seats `ludotheque play` sits by default, you and bots; 0: the fewest the
    # game takes, two at least.
    play_seats: int = 0
    # An example kept to teach (docs/NEW_GAME.md): served only when asked
    # (`ludotheque serve --example-games`, LUDOTHEQUE_EXAMPLE_GAMES).
    example: bool = False

    def __post_init__(self) -> None:
        kind = self.engine.kind
        if self.describer.kind != kind:
            raise ValueError(f"engines/{kind}/: its describer says kind {self.describer.kind!r}, its engine {kind!r}")
        if self.data is not None and self.data.game != kind:
            raise ValueError(f"engines/{kind}/: its data is seeds/{self.data.game}/, not seeds/{kind}/")
        if self.data is not None and self.data.rules_version != self.engine.rules_version:
            raise ValueError(
                f"engines/{kind}/: its data is read for rules {self.data.rules_version}, "
                f"its engine plays {self.engine.rules_version}"
            )

    @property
    def kind(self) -> str:
        return self.engine.kind
