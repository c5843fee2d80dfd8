"""Pirates & Compagnie bots. They read only what their seat knows: their own hand,
the discard pile's top card and the colour a Parrot asked for, the direction of
play, and how many cards each player holds."""

from __future__ import annotations

import random
from collections import Counter

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.pirates.cards import COLOURS, Card, ColourId
from engines.pirates.rules import layable, legal_commands
from engines.pirates.state import PiratesState


def random_bot(state: PiratesState, seat: int, rng: random.Random) -> pb.Command:
    """Any legal move, uniformly (forgetting "ohé!" included)."""
    return rng.choice(legal_commands(state, seat))


def _card_value(state: PiratesState, seat: int, card: Card, rest: Counter[ColourId]) -> float:
    """How good laying `card` is now: keep Parrots for when nothing else fits, stay in
    the colours you hold most of, and hit the next player when they are close to
    winning the round."""
    sizes = [len(hand) for hand in state.hands]
    count = state.seat_count
    next_seat = (seat + state.direction) % count
    previous_seat = (seat - state.direction) % count
    value = float(rest[card.colour])
    if card.is_parrot:
        value -= 10.0
    elif card.kind == pb.CARD_KIND_BOTTLE:
        value += 6.0 if sizes[next_seat] <= 2 else 2.0
    elif card.kind == pb.CARD_KIND_SLEEPING_PIRATE:
        value += 5.0 if sizes[next_seat] <= 2 else 1.0
    elif card.kind == pb.CARD_KIND_SAILBOAT:
        if count == 2:
            value += 4.0  # the other player misses a turn
        else:
            value += 3.0 if sizes[next_seat] < sizes[previous_seat] else -1.0
    return value


def best_colour(hand: tuple[Card, ...]) -> ColourId:
    """The colour held most (the first in sticker order on a tie)."""
    counts = Counter(card.colour for card in hand if not card.is_parrot)
    return max(COLOURS, key=lambda colour: (counts[colour], -COLOURS.index(colour)))


def greedy_bot(state: PiratesState, seat: int, rng: random.Random) -> pb.Command:
    """Lays a card whenever one fits (the best by _card_value), answers every Bottle
    it can, announces its strongest colour, and never forgets "ohé!"."""
    cards = layable(state, seat)
    if not cards:
        if state.phase == pb.PHASE_DRAWN:
            return pb.Command(end_turn=pb.EndTurn())
        return pb.Command(draw=pb.Draw())
    hand = state.hands[seat]
    scored = []
    for candidate in cards:
        index = hand.index(candidate)
        others = hand[:index] + hand[index + 1 :]
        colours = Counter(c.colour for c in others)
        scored.append((_card_value(state, seat, candidate, colours), rng.random(), candidate, others))
    _, _, card, rest = max(scored)
    play = pb.Play(card=card.to_proto())
    if card.is_parrot:
        play.announce = best_colour(rest)
    assert state.options is not None
    play.call_ohe = state.options.ohe_variant and len(rest) <= 1
    return pb.Command(play=play)


BOTS = {"random": random_bot, "greedy": greedy_bot}
