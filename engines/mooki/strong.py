"""Mooki Island's strong bot: the information-set search of engines/search.py, in
worlds built from what its seat knows.

A seat knows the 36 cards of the catalogue (seeds/mooki/cards.json: public), the face
showing on each pile, both faces of a card it drew, and every face placed so far: the
face kept up, and the face under it when it was the one showing on the pile, or when
the seat placed the card itself. It remembers them all, as the rules ask players to
try to (engines/mooki/memory.py limits what the service shows again, not what a
player remembers). It never saw a face buried in a pile, the face under a pile's top
card, the hidden face of the card the other seat holds, nor the face the other seat
turned down under a card it kept as shown: `determinise` deals those at random among
the cards such a world may hold, from a catalogue-ordered pool, so that two states
the seat cannot tell apart give the same worlds for the same random draws."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import replace

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.mooki import rules
from engines.mooki.bots import greedy_bot
from engines.mooki.cards import CARDS, Face
from engines.mooki.scoring import tally
from engines.mooki.state import Drawn, MookiState, PileCard, Placed
from engines.search import SearchBot, SearchGame


def _knows_both(placed: Placed, seat: int) -> bool:
    """Whether `seat` saw both faces of a placed card: it drew it, or the face shown
    on the pile is the one turned down."""
    return placed.placed_by == seat or placed.side == pb.SIDE_HIDDEN


def _deal(slots: Sequence[Face], pool: list[int], rng: random.Random) -> list[int]:
    """A card of `pool` for each slot, showing that slot's face, each card once (a
    matching found by augmenting paths, slots and cards tried in random order); takes
    the chosen cards out of `pool`. The real world is one such answer, so there is one."""
    fitting = [[card_id for card_id in pool if face in CARDS[card_id]] for face in slots]
    for cards in fitting:
        rng.shuffle(cards)
    holder: dict[int, int] = {}  # card -> slot

    def place(slot: int, tried: set[int]) -> bool:
        for card_id in fitting[slot]:
            if card_id in tried:
                continue
            tried.add(card_id)
            if card_id not in holder or place(holder[card_id], tried):
                holder[card_id] = slot
                return True
        return False

    order = list(range(len(slots)))
    rng.shuffle(order)
    for slot in order:
        if not place(slot, set()):
            raise AssertionError("no world fits what the seat saw")
    chosen = {slot: card_id for card_id, slot in holder.items()}
    for card_id in holder:
        pool.remove(card_id)
    return [chosen[slot] for slot in range(len(slots))]


# Each card's faces in order, to find a card by its two faces whichever lies up.
_PAIRS = tuple(tuple(sorted(card)) for card in CARDS)


def _take(pool: list[int], face: Face, other: Face) -> int:
    """Takes out of `pool` the first card with these two faces."""
    pair = (face, other) if face <= other else (other, face)
    card_id = next(card_id for card_id in pool if _PAIRS[card_id] == pair)
    pool.remove(card_id)
    return card_id


def _pile_card(card_id: int, up: Face) -> PileCard:
    first, second = CARDS[card_id]
    return PileCard(card_id, up, second if first == up else first)


def determinise(state: MookiState, seat: int, rng: random.Random) -> MookiState:
    """A world `seat` cannot tell from `state`, drawn from what it knows only."""
    if not state.piles or state.result is not None:
        return state
    pool = list(range(len(CARDS)))
    collections = [list(collection) for collection in state.collections]
    half_known: list[tuple[str, int, int, Face]] = []  # (where, which, position, the face seen)
    for owner, collection in enumerate(collections):
        for position, placed in enumerate(collection):
            if _knows_both(placed, seat):
                card_id = _take(pool, placed.face, placed.other_face)
                collections[owner][position] = placed._replace(card_id=card_id)
            else:
                half_known.append(("collection", owner, position, placed.face))
    drawn = state.drawn
    if drawn is not None:
        if drawn.seat == seat:
            card_id = _take(pool, drawn.card.shown, drawn.card.hidden)
            drawn = Drawn(drawn.seat, drawn.pile, PileCard(card_id, drawn.card.shown, drawn.card.hidden))
        else:
            half_known.append(("drawn", 0, 0, drawn.card.shown))
    half_known += [("pile", index, 0, pile[0].shown) for index, pile in enumerate(state.piles) if pile]
    faces = [face for *_, face in half_known]
    chosen = _deal(faces, pool, rng)
    rng.shuffle(pool)
    buried = [_pile_card(card_id, CARDS[card_id][rng.randrange(2)]) for card_id in pool]
    tops: dict[int, PileCard] = {}
    for (where, which, position, face), card_id in zip(half_known, chosen, strict=True):
        card = _pile_card(card_id, face)
        if where == "collection":
            placed = collections[which][position]
            collections[which][position] = placed._replace(card_id=card_id, other_face=card.hidden)
        elif where == "drawn":
            assert drawn is not None
            drawn = Drawn(drawn.seat, drawn.pile, card)
        else:
            tops[which] = card
    piles = []
    for index, pile in enumerate(state.piles):
        count = max(len(pile) - 1, 0)
        rest, buried = buried[:count], buried[count:]
        piles.append(tuple(([tops[index]] if pile else []) + rest))
    return replace(
        state, piles=tuple(piles), dealt=tuple(piles), collections=tuple(tuple(c) for c in collections), drawn=drawn
    )


def _lead(margin: float) -> float:
    """How likely a margin of Mookies is to hold until the end (a smooth guess)."""
    return 1.0 / (1.0 + math.exp(-margin / 1.5))


def rewards(state: MookiState) -> tuple[float, float]:
    """Per seat: 1 for the winner, 0 for the loser once the game is over; before, how
    likely each is to win, guessed from the trophies' stars each is likely to hold."""
    if state.result is not None:
        winner = state.result.winner
        return (1.0, 0.0) if winner == 0 else (0.0, 1.0)
    counts, spiders = tally(state.collections)
    expected = [0.0, 0.0]
    for per_seat, stars in zip(counts, state.stars, strict=True):
        lead = _lead(per_seat[0] - per_seat[1])
        expected[0] += lead * stars
        expected[1] += (1.0 - lead) * stars
    penalty = min(state.stars) if state.stars else 0
    more = _lead(spiders[0] - spiders[1])
    expected[0] -= more * penalty
    expected[1] -= (1.0 - more) * penalty
    first = 1.0 / (1.0 + math.exp(-(expected[0] - expected[1]) / STAR_SCALE))
    return first, 1.0 - first


# How many stars of expected lead make a win about 73% likely (e to one).
STAR_SCALE = 2.0


def moves(state: MookiState, seat: int) -> list[pb.Command]:
    """The legal moves but the automatic discard (it is one of the trophies named)."""
    legal = rules.legal_commands(state, seat)
    named = [command for command in legal if not command.discard_trophy.auto]
    return named or legal


SEARCH: SearchGame[MookiState, pb.Command] = SearchGame(
    legal=moves,
    decide=rules.decide,
    evolve=rules.evolve,
    to_act=rules.to_act,
    rewards=rewards,
    policy=greedy_bot,
    determinise=determinise,
)
# Measured on the project's machine (docs/GAMES.md, "The strong bots"): the p99 of a
# move's CPU time stays under 100 ms.
ITERATIONS, HORIZON = 64, 8
strong_bot = SearchBot(SEARCH, iterations=ITERATIONS, horizon=HORIZON)
