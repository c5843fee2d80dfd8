"""Pirates & Compagnie's strong bot: the information-set search of engines/search.py,
in worlds built from what its seat knows.

A seat knows its own hand (and the cards it just drew), the discard pile (every card
on it was laid face up), the cards left in the box, and how many cards each player
holds; with open hands, every hand. It does not know the order of the draw pile nor
the cards of hands it may not see: `determinise` deals the cards it cannot place
(those neither in its hand, nor on the discard pile, nor in the box), sorted first so
that two states the seat cannot tell apart give the same worlds for the same random
draws, to those hands (each keeping its size) and the draw pile."""

from __future__ import annotations

import math
import random
from dataclasses import replace

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.pirates import rules
from engines.pirates.bots import greedy_bot
from engines.pirates.state import PiratesState
from engines.search import SearchBot, SearchGame


def determinise(state: PiratesState, seat: int, rng: random.Random) -> PiratesState:
    """A world `seat` cannot tell from `state`, drawn from what it knows only."""
    if state.options is None or not state.hands or state.winner is not None:
        return state
    hidden = [] if state.options.open_hands else [other for other in range(state.seat_count) if other != seat]
    pool = sorted([*state.draw_pile, *(card for other in hidden for card in state.hands[other])])
    rng.shuffle(pool)
    draw_pile, pool = tuple(pool[: len(state.draw_pile)]), pool[len(state.draw_pile) :]
    hands = list(state.hands)
    for other in hidden:
        size = len(state.hands[other])
        hands[other], pool = tuple(sorted(pool[:size])), pool[size:]
    return replace(state, draw_pile=draw_pile, hands=tuple(hands))


# A space sailed is worth this many cards held (a round won is a space; a hand of
# five cards is far from winning one).
SPACE_IN_CARDS = 5.0
# How many cards of lead make a win about e times as likely.
CARD_SCALE = 2.0


def rewards(state: PiratesState) -> tuple[float, ...]:
    """Per seat: 1 for the winner, 0 for the others once the game is over; before, a
    share of the win guessed from the spaces sailed and the cards left in hand."""
    if state.winner is not None:
        return tuple(1.0 if seat == state.winner else 0.0 for seat in range(state.seat_count))
    strength = [
        (SPACE_IN_CARDS * ship - len(hand)) / CARD_SCALE for ship, hand in zip(state.ships, state.hands, strict=True)
    ]
    top = max(strength)
    weights = [math.exp(value - top) for value in strength]
    total = sum(weights)
    return tuple(weight / total for weight in weights)


def moves(state: PiratesState, seat: int) -> list[pb.Command]:
    """The legal moves but forgetting "ohé!" when it could be called (it only costs a card)."""
    legal = rules.legal_commands(state, seat)
    return [command for command in legal if command.play.call_ohe or not _could_call(command, legal)]


def _could_call(command: pb.Command, legal: list[pb.Command]) -> bool:
    if not command.HasField("play"):
        return False
    called = pb.Command()
    called.CopyFrom(command)
    called.play.call_ohe = True
    return called in legal


SEARCH: SearchGame[PiratesState, pb.Command] = SearchGame(
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
ITERATIONS, HORIZON = 60, 12
strong_bot = SearchBot(SEARCH, iterations=ITERATIONS, horizon=HORIZON)
