"""Building Pirates & Compagnie situations for tests: cards, commands, rigged tables,
and what the property suite needs (inventory, command universe, perturbation)."""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import cast

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import SeatInfo, Viewer, fold
from engines.pirates import ENGINE
from engines.pirates.cards import COLOURS, DECK, PARROT, Card, ColourId
from engines.pirates.data import DATA
from engines.pirates.rules import cards_in_play
from engines.pirates.state import PiratesState

FLOWER, SQUARE, CIRCLE, STAR = COLOURS


def pirate(colour: ColourId, value: int) -> Card:
    return Card(pb.CARD_KIND_PIRATE, colour, value)


def sailboat(colour: ColourId) -> Card:
    return Card(pb.CARD_KIND_SAILBOAT, colour, 0)


def bottle(colour: ColourId) -> Card:
    return Card(pb.CARD_KIND_BOTTLE, colour, 0)


def sleeping(colour: ColourId) -> Card:
    return Card(pb.CARD_KIND_SLEEPING_PIRATE, colour, 0)


def play(card: Card, announce: ColourId = pb.COLOUR_UNSPECIFIED, *, ohe: bool = False) -> pb.Command:
    return pb.Command(play=pb.Play(card=card.to_proto(), announce=announce, call_ohe=ohe))


DRAW = pb.Command(draw=pb.Draw())
END_TURN = pb.Command(end_turn=pb.EndTurn())


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


# --- what the property suite needs -------------------------------------------------


def rulebook_outcome(state: PiratesState) -> tuple[int, ...] | None:
    """ "The first player whose ship reaches the treasure island has won": None while
    no ship is there, else its seat. (A round won by laying the last card is dealt
    again at once, so a hand is never found empty while the game goes on.)"""
    if state.options is None:
        return None
    arrived = [seat for seat, ship in enumerate(state.ships) if ship >= state.options.island_distance]
    if not arrived:
        assert all(state.hands), "a round ended (an empty hand) but was not dealt again"
        return None
    return tuple(arrived)


def inventory(state: PiratesState) -> Counter[Hashable]:
    """Every card wherever it is (hands, draw pile, discard pile, the box): the 52
    cards must all be there at every step."""
    items: Counter[Hashable] = Counter(state.removed)
    for hand in state.hands:
        items.update(hand)
    items.update(state.draw_pile)
    items.update(state.discard)
    return items


UNKNOWN_COLOUR = cast(pb.Colour.ValueType, 9)


@functools.cache
def _plays_of(card: Card) -> tuple[pb.Command, ...]:
    """Every way to send `card`, legal or not (built once: the suite asks often)."""
    announces = (pb.COLOUR_UNSPECIFIED, *COLOURS, UNKNOWN_COLOUR) if card.is_parrot else (pb.COLOUR_UNSPECIFIED,)
    return tuple(play(card, announce, ohe=ohe) for announce in announces for ohe in (False, True))


_ALWAYS = (
    PARROT,
    pirate(FLOWER, 1),
    bottle(SQUARE),
    sailboat(STAR),
    Card(pb.CARD_KIND_PIRATE, FLOWER, 10),  # no such card
    Card(pb.CARD_KIND_UNSPECIFIED, pb.COLOUR_UNSPECIFIED, 0),  # no card at all
)
_OTHERS = (play(pirate(STAR, 9), STAR), DRAW, END_TURN, pb.Command())


def command_universe(state: PiratesState) -> list[pb.Command]:
    """Moves one could send, legal or not: every card of the active seat's hand and
    the top card, a few cards nobody may hold, each with and without "ohé!", Parrots
    with every announcement; a non-Parrot announcing; draws, ends of turn and an
    empty command. (The other seats' cards would only add more of not_your_turn.)"""
    cards = set(_ALWAYS)
    if state.hands:
        cards.update(state.hands[state.active_seat])
    if state.discard:
        cards.add(state.top)
    commands = [command for card in sorted(cards) for command in _plays_of(card)]
    commands += _OTHERS
    return commands


def perturb(state: PiratesState, viewer: Viewer, rng: random.Random) -> PiratesState:
    """A state differing from `state` only in what `viewer` cannot know: the draw
    pile's order and contents, and the cards of the hands it may not see (each
    keeping its size), including which of them the active seat just drew."""
    if viewer.is_admin or state.options is None or not state.hands:
        return state
    hidden_seats = [] if state.options.open_hands else [s for s in range(state.seat_count) if not viewer.is_seat(s)]
    pool = list(state.draw_pile) + [card for seat in hidden_seats for card in state.hands[seat]]
    rng.shuffle(pool)
    draw_pile, pool = tuple(pool[: len(state.draw_pile)]), pool[len(state.draw_pile) :]
    hands = list(state.hands)
    for seat in hidden_seats:
        size = len(state.hands[seat])
        hands[seat], pool = tuple(sorted(pool[:size])), pool[size:]
    drawn = state.drawn
    if drawn and state.active_seat in hidden_seats:
        drawn = tuple(rng.sample(hands[state.active_seat], len(drawn)))
    return replace(state, draw_pile=draw_pile, hands=tuple(hands), drawn=drawn)
