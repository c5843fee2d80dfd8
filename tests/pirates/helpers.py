"""Building Pirates & Compagnie situations for tests: cards, commands, rigged tables
(what the property suite needs is engines/pirates/proof.py)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import cast

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import SeatInfo, fold
from engines.pirates import ENGINE
from engines.pirates.cards import COLOURS, DECK, Card, ColourId
from engines.pirates.data import DATA
from engines.pirates.proof import DRAW as DRAW  # the commands and cards, as the property suite builds them
from engines.pirates.proof import END_TURN as END_TURN
from engines.pirates.proof import bottle as bottle
from engines.pirates.proof import pirate as pirate
from engines.pirates.proof import play as play
from engines.pirates.proof import sailboat as sailboat
from engines.pirates.rules import cards_in_play
from engines.pirates.state import PiratesState

FLOWER, SQUARE, CIRCLE, STAR = COLOURS


def sleeping(colour: ColourId) -> Card:
    return Card(pb.CARD_KIND_SLEEPING_PIRATE, colour, 0)


def seats(count: int) -> list[SeatInfo]:
    return [SeatInfo()] * count


def new_state(seat_count: int = 3, options: pb.Options | None = None, seed: int = 1) -> PiratesState:
    """The state of a game just dealt at random."""
    resolved = ENGINE.resolve_options(options or pb.Options(), seats(seat_count))
    return fold(ENGINE, ENGINE.setup(resolved, seats(seat_count), random.Random(seed)))


def table(
    hands: Sequence[Sequence[Card]],
    top: Card,
    *,
    pile: Sequence[Card] = (),
    rest: str | int = "pile",
    options: pb.Options | None = None,
    active: int = 0,
    direction: int = 1,
    announced: ColourId = pb.COLOUR_UNSPECIFIED,
    ships: Sequence[int] | None = None,
) -> PiratesState:
    """A round in progress: these hands, `top` on the discard pile, `pile` on top of
    the draw pile. Every other card in play goes to `rest`: under `pile` ("pile"),
    under `top` ("discard"), or into a seat's hand (a seat number), so the 52 cards
    are all somewhere."""
    count = len(hands)
    resolved = ENGINE.resolve_options(options or pb.Options(), seats(count))
    started = ENGINE.evolve(
        ENGINE.initial_state(),
        pb.Event(
            game_started=pb.GameStarted(
                options=resolved,
                seat_count=count,
                removed=[c.to_proto() for c in DECK if c.kind in resolved.removed_specials],
                data_digest=DATA.digest,
            )
        ),
    )
    left = Counter(cards_in_play(tuple(resolved.removed_specials)))
    placed = Counter([c for hand in hands for c in hand] + [top, *pile])
    if placed - left:
        raise ValueError(f"more cards than the deck holds: {placed - left}")
    others = sorted((left - placed).elements())
    hand_lists = [list(hand) for hand in hands]
    draw_pile, discard = list(pile), [top]
    if rest == "pile":
        draw_pile += others
    elif rest == "discard":
        discard = [*others, top]
    else:
        hand_lists[int(rest)] += others
    return replace(
        started,
        phase=pb.PHASE_PLAY,
        round=1,
        hands=tuple(tuple(sorted(hand)) for hand in hand_lists),
        draw_pile=tuple(draw_pile),
        discard=tuple(discard),
        active_seat=active,
        direction=direction,
        announced=announced,
        ships=tuple(ships) if ships is not None else (0,) * count,
    )


def run(state: PiratesState, seat: int, command: pb.Command, seed: int = 0) -> tuple[PiratesState, list[pb.Event]]:
    events = ENGINE.decide(state, seat, command, random.Random(seed))
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, events


def kinds(events: Sequence[pb.Event]) -> list[str]:
    return [cast(str, e.WhichOneof("kind")) for e in events]


def to_act(state: PiratesState) -> int:
    return ENGINE.status(state).to_act[0]
