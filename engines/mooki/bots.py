"""Mooki Island bots. They read only what their seat knows: the faces showing on the
piles, both faces of the card they hold, and every face placed so far (a player at the
table saw each card placed; the bots simply remember perfectly)."""

from __future__ import annotations

import math
import random

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.mooki.cards import Face, family_index
from engines.mooki.rules import legal_commands
from engines.mooki.scoring import cheapest_trophy, final_result, score, tally, trophies_won
from engines.mooki.state import MookiState, Placed


def random_bot(state: MookiState, seat: int, rng: random.Random) -> pb.Command:
    """Any legal move, uniformly."""
    return rng.choice(legal_commands(state, seat))


def _lead(margin: float) -> float:
    """How likely a margin of Mookies is to hold until the end (a smooth guess)."""
    return 1.0 / (1.0 + math.exp(-margin / 1.5))


Tally = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]


def face_value(state: MookiState, seat: int, face: Face, tallied: Tally | None = None) -> float:
    """The expected gain in stars of playing `face` now (`tallied`: the collections'
    tally, when the caller has it)."""
    counts, spiders = tally(state.collections) if tallied is None else tallied
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


def final_score(state: MookiState, seat: int, face: Face) -> tuple[bool, int]:
    """How the game ends if `seat` plays `face` as its last card: whether it wins, and
    by how many stars (the end-of-game scoring, the Spider's penalty given back the
    guide's way, the youngest winning a tie)."""
    opponent = 1 - seat
    collections = [list(collection) for collection in state.collections]
    collections[opponent if face.is_spider else seat].append(Placed(-1, face, face, seat, pb.SIDE_SHOWN))
    scoring = score(*tally(collections))
    trophies = [list(trophies_won(scoring, each)) for each in range(len(collections))]
    penalised = scoring.penalised_seat
    if penalised is not None:
        trophies[penalised].remove(cheapest_trophy(trophies[penalised], state.stars))
    result = final_result(trophies, state.stars, state.youngest_seat)
    return result.winner == seat, result.stars[seat] - result.stars[opponent]


def _last_card(state: MookiState) -> bool:
    """Whether the card in hand is the game's last: a pile is empty once it was drawn."""
    return any(not pile for pile in state.piles)


def greedy_bot(state: MookiState, seat: int, rng: random.Random) -> pb.Command:
    """Takes the pile whose showing face is worth most, keeps the better face of the
    card, and gives back the cheapest trophy. The last card is weighed by the game's
    end: the face that wins (by most stars); and a last card that would not win is
    left for the other pile, when it has cards."""
    if state.phase == pb.PHASE_DRAW:
        return pb.Command(draw=pb.Draw(pile=_pile(state, seat, rng)))
    if state.phase == pb.PHASE_PLACE and state.drawn is not None:
        card = state.drawn.card
        if _last_card(state):
            side = (
                pb.SIDE_HIDDEN
                if final_score(state, seat, card.hidden) > final_score(state, seat, card.shown)
                else pb.SIDE_SHOWN
            )
            return pb.Command(place=pb.Place(side=side))
        tallied = tally(state.collections)
        shown, hidden = face_value(state, seat, card.shown, tallied), face_value(state, seat, card.hidden, tallied)
        side = pb.SIDE_HIDDEN if hidden > shown else pb.SIDE_SHOWN
        return pb.Command(place=pb.Place(side=side))
    if state.phase == pb.PHASE_DISCARD_TROPHY:
        return pb.Command(discard_trophy=pb.DiscardTrophy(auto=True))
    return random_bot(state, seat, rng)


def _pile(state: MookiState, seat: int, rng: random.Random) -> int:
    """The pile to draw from: the one whose showing face is worth most; but a pile's
    last card ends the game, so it is taken when its showing face wins, and left
    otherwise while the other pile has cards."""
    piles = [(index, pile) for index, pile in enumerate(state.piles) if pile]
    going_on = [(index, pile) for index, pile in piles if len(pile) > 1]
    for index, pile in piles:
        if len(pile) == 1 and final_score(state, seat, pile[0].shown)[0]:
            return index
    tallied = tally(state.collections)
    values = [
        (face_value(state, seat, pile[0].shown, tallied), rng.random(), index) for index, pile in going_on or piles
    ]
    return max(values)[2]


BOTS = {"random": random_bot, "greedy": greedy_bot}
