"""Mooki Island bots. They read only what their seat knows: the faces showing on the
piles, both faces of the card they hold, and every face placed so far (a player at the
table saw each card placed; the bots simply remember perfectly)."""

from __future__ import annotations

import math
import random

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.mooki.cards import Face, family_index
from engines.mooki.rules import legal_commands
from engines.mooki.scoring import tally
from engines.mooki.state import MookiState


def random_bot(state: MookiState, seat: int, rng: random.Random) -> pb.Command:
    """Any legal move, uniformly."""
    return rng.choice(legal_commands(state, seat))


def _lead(margin: float) -> float:
    """How likely a margin of Mookies is to hold until the end (a smooth guess)."""
    return 1.0 / (1.0 + math.exp(-margin / 1.5))


def face_value(state: MookiState, seat: int, face: Face) -> float:
    """The expected gain in stars of playing `face` now."""
    counts, spiders = tally(state.collections)
    opponent = 1 - seat
    if face.is_spider:
        # More Spiders than the opponent costs them a trophy, about its stars.
        before = _lead(spiders[opponent] - spiders[seat])
        after = _lead(spiders[opponent] + 1 - spiders[seat])
        return (after - before) * min(state.stars)
    index = family_index(face.family)
    mine, theirs = counts[index][seat], counts[index][opponent]
    gain = _lead(mine + face.weight - theirs) - _lead(mine - theirs)
    return gain * state.stars[index]


def greedy_bot(state: MookiState, seat: int, rng: random.Random) -> pb.Command:
    """Takes the pile whose showing face is worth most, keeps the better face of the
    card, and gives back the cheapest trophy."""
    if state.phase == pb.PHASE_DRAW:
        values = [
            (face_value(state, seat, pile[0].shown), rng.random(), index)
            for index, pile in enumerate(state.piles)
            if pile
        ]
        return pb.Command(draw=pb.Draw(pile=max(values)[2]))
    if state.phase == pb.PHASE_PLACE and state.drawn is not None:
        card = state.drawn.card
        shown, hidden = face_value(state, seat, card.shown), face_value(state, seat, card.hidden)
        side = pb.SIDE_HIDDEN if hidden > shown else pb.SIDE_SHOWN
        return pb.Command(place=pb.Place(side=side))
    if state.phase == pb.PHASE_DISCARD_TROPHY:
        return pb.Command(discard_trophy=pb.DiscardTrophy(auto=True))
    return random_bot(state, seat, rng)


BOTS = {"random": random_bot, "greedy": greedy_bot}
