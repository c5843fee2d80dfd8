"""What the property suite proves of Higher or Lower (docs/NEW_GAME.md, step 8), from
its rules as written rather than from rules.py: the 20 cards are all somewhere, the
game ends when the deck is out with the most points winning, the moves one could
send, what no viewer but the admin may know (the order of the deck) and what a call
shows everyone (the next card)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from dataclasses import replace

from ludotheque.highlow.v1 import highlow_pb2 as pb

from engines.contract import Viewer
from engines.highlow.rules import HighLowState
from engines.registration import Move, Proof, unknown_value


def inventory(state: HighLowState) -> Counter[Hashable]:
    return Counter((*state.deck, *state.turned, state.face_up) if state.started else ())


def outcome(state: HighLowState) -> tuple[int, ...] | None:
    if not state.started or state.deck:
        return None
    best = max(state.points)
    return tuple(seat for seat, points in enumerate(state.points) if points == best)


def command_universe(state: HighLowState) -> list[pb.Command]:
    calls = (pb.CALL_HIGHER, pb.CALL_LOWER, pb.CALL_UNSPECIFIED, unknown_value(pb.Call))
    return [*(pb.Command(guess=pb.Guess(call=call)) for call in calls), pb.Command()]


def perturb(state: HighLowState, viewer: Viewer, rng: random.Random) -> HighLowState:
    """Another order of the deck: nobody but the admin may tell."""
    if viewer.is_admin:
        return state
    return replace(state, deck=tuple(rng.sample(state.deck, len(state.deck))))


def reveals(move: Move[HighLowState, pb.Command], viewer: Viewer) -> Hashable:
    """A call turns the next card up for everyone: that card, and nothing else."""
    return move.before.deck[0] if move.before.deck else None


PROOF: Proof[HighLowState, pb.Command] = Proof(
    inventory=inventory,
    command_universe=command_universe,
    perturb=perturb,
    reveals=reveals,
    outcome=outcome,
    max_events=21,  # the deal, a call per card but the first, the end
    random_options=lambda rng, seats: pb.Options(ties_win=rng.random() < 0.5),
)
