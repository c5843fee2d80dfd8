"""What the property suite proves of Pirates & Compagnie (engines/registration.py's
Proof), from the rulebook rather than from engines/pirates/rules.py: the 52 cards are
all somewhere, the first ship at the island wins, which commands one could send,
which states a viewer cannot tell apart, and what a move shows. Read by the tests only
(tests/support/engine_properties.py), never by the rules."""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Hashable
from dataclasses import replace

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import Viewer
from engines.pirates.cards import COLOURS, PARROT, SPECIAL_KINDS, Card, ColourId
from engines.pirates.state import PiratesState
from engines.registration import Move, Proof, unknown_value

FLOWER, SQUARE, CIRCLE, STAR = COLOURS


def pirate(colour: ColourId, value: int) -> Card:
    return Card(pb.CARD_KIND_PIRATE, colour, value)


def sailboat(colour: ColourId) -> Card:
    return Card(pb.CARD_KIND_SAILBOAT, colour, 0)


def bottle(colour: ColourId) -> Card:
    return Card(pb.CARD_KIND_BOTTLE, colour, 0)


def play(card: Card, announce: ColourId = pb.COLOUR_UNSPECIFIED, *, ohe: bool = False) -> pb.Command:
    return pb.Command(play=pb.Play(card=card.to_proto(), announce=announce, call_ohe=ohe))


DRAW = pb.Command(draw=pb.Draw())
END_TURN = pb.Command(end_turn=pb.EndTurn())


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


UNKNOWN_COLOUR = unknown_value(pb.Colour)


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


def reveals(move: Move[PiratesState, pb.Command], viewer: Viewer) -> Hashable:
    """What a move shows, as the rulebook tells it: a card laid is seen by all (the
    command names it: nothing to declare); the cards a player draws ("piocher une
    carte", two for a Bottle, one for a forgotten "ohé !") are seen by that player only,
    and by everyone "en jouant avec les cartes visibles" (open hands). A new round is
    dealt from all the cards shuffled ("Mélanger toutes les cartes et distribuer"):
    nothing hidden before shows in it."""
    before, after, seat = move.before, move.after, move.seat
    if before.options is None or after.round != before.round:
        return None
    if not (before.options.open_hands or viewer.is_seat(seat)):
        return None
    # The cards drawn, in the order drawn: from the top of the draw pile (and then
    # from the discard pile shuffled, no secret: it was laid face up).
    drawn = sum((Counter(after.hands[seat]) - Counter(before.hands[seat])).values())
    return before.draw_pile[:drawn]


def lively(state: PiratesState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
    """A random player who lays a card three times out of four when one is legal: a
    uniformly random player draws so often that rounds last hundreds of moves."""
    plays = [command for command in legal if command.HasField("play")]
    if plays and rng.random() < 0.75:
        return rng.choice(plays)
    return rng.choice(legal)


# Every round ends, within a bound. Between two rebuilds of the draw pile, a round
# has at most 52 draws that find a card (each takes one from a pile of at most 52),
# each perhaps followed by an EndTurn, at most 52 cards laid (the cards in hands plus
# those drawn), and, once no card is left to draw, at most 4 draws that find nothing
# before someone who can lay must lay (every card but the top one is then in a hand,
# so a card of its colour is too): at most 104 + 52 + 4 * 53 = 368 moves, of at most 4
# events each. A round has at most rebuilds_per_round + 1 such stretches (the
# rebuilds allowed, 3 here at most, then the round ends). Measured for comparison
# (rules pirates/2, 150 games of 2 to 4 seats, default options): the longest round of
# uniformly random players had 658 events, of players who draw whenever allowed 101,
# of greedy bots 253.
MAX_REBUILDS = 3
EVENTS_PER_ROUND = 368 * 4 * (MAX_REBUILDS + 1)
_CHOICES = {
    "bottle_chain": tuple(pb.BottleChain.values()),
    "bottle_follow_up": tuple(pb.BottleFollowUp.values()),
    "next_round_starter": tuple(pb.NextRoundStarter.values()),
}
_SWITCHES = ("open_hands", "ohe_variant", "must_play", "must_answer_bottle", "must_lay_after_bottle")


def random_options(rng: random.Random, seats: int) -> pb.Options:
    """Short games (an island one or two spaces away: the rules repeat every round)
    with any variant, removed specials, rebuild count and first seat."""
    options = pb.Options(
        island_distance=rng.randint(1, 2),
        removed_specials=rng.sample(SPECIAL_KINDS, rng.randint(0, len(SPECIAL_KINDS))),
        rebuilds_per_round=rng.randint(0, MAX_REBUILDS),  # 0: the default, 3
        first_seat=rng.randrange(seats),
    )
    for name, values in _CHOICES.items():
        setattr(options, name, rng.choice(values))
    for name in _SWITCHES:
        setattr(options, name, rng.random() < 0.5)
    return options


PROOF: Proof[PiratesState, pb.Command] = Proof(
    inventory=inventory,
    command_universe=command_universe,
    perturb=perturb,
    reveals=reveals,
    outcome=rulebook_outcome,
    max_events=EVENTS_PER_ROUND * 5,  # at most 2 spaces to sail, 4 seats: at most 5 rounds
    random_options=random_options,
    player=lively,
    varied_options=(pb.Options(ohe_variant=True), pb.Options(open_hands=True, must_play=True)),
    short_options=pb.Options(island_distance=1),  # one round
)
