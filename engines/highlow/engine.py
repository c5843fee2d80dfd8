"""Higher or Lower behind the engine contract (docs/NEW_GAME.md, step 4): what each
viewer sees, its bots, and the engine that puts them together with the rules."""

from __future__ import annotations

import random
from collections import Counter

from ludotheque.highlow.v1 import highlow_pb2 as pb

from engines import limits
from engines.adapter import GameEngine
from engines.contract import Viewer
from engines.highlow import rules
from engines.highlow.rules import CARDS, HighLowState

# The class of a stopped game's state (engines/limits.py), bound here for pickle.
StoppedHighLowState = limits.stopped_class(HighLowState, __name__)


class Visibility:
    """Everyone sees the same table; the deck's order is the admin's only."""

    @staticmethod
    def view(state: HighLowState, viewer: Viewer) -> pb.View:
        view = pb.View(
            phase=pb.PHASE_FINISHED if state.finished else pb.PHASE_CALL if state.started else pb.PHASE_UNSPECIFIED,
            face_up=state.face_up,
            cards_left=len(state.deck),
            points=state.points,
            options=pb.Options(ties_win=state.ties_win),
        )
        if state.started and not state.finished:
            view.active_seat = state.to_act
        if state.finished:
            view.result.winners.extend(state.winners)
            view.result.points = state.points[state.winners[0]]
        return view

    @staticmethod
    def redact(event: pb.Event, viewer: Viewer) -> pb.Event:
        if viewer.is_admin or not event.HasField("game_started"):
            return event  # nothing else is hidden: a card turned is seen by all
        seen = pb.Event()
        seen.CopyFrom(event)
        del seen.game_started.deck[:]
        return seen


def _unseen(state: HighLowState) -> Counter[int]:
    """The cards still face down, as every seat can count them: the deck's cards
    less those on the table (never the deck's order)."""
    return Counter(CARDS) - Counter((*state.turned, state.face_up))


def greedy(state: HighLowState, seat: int, rng: random.Random) -> pb.Command:
    """Calls the likelier side."""
    unseen = _unseen(state)
    higher = sum(n for value, n in unseen.items() if value > state.face_up)
    lower = sum(n for value, n in unseen.items() if value < state.face_up)
    return pb.Command(guess=pb.Guess(call=pb.CALL_HIGHER if higher >= lower else pb.CALL_LOWER))


def random_bot(state: HighLowState, seat: int, rng: random.Random) -> pb.Command:
    return pb.Command(guess=pb.Guess(call=rng.choice(rules.CALLS)))


ENGINE: GameEngine[HighLowState, pb.Command, pb.Event, pb.Options, pb.View] = GameEngine(
    kind="highlow",
    rules_version=rules.RULES_VERSION,
    seats=rules.SEATS,
    messages=(pb.Command, pb.Event, pb.Options, pb.View),
    state_type=HighLowState,
    rules=rules,
    visibility=Visibility(),
    bots={"greedy": greedy, "random": random_bot},
    default_event_limit=200,  # a game has 21 events: the deal, 19 calls, the end
    finished_phase=pb.PHASE_FINISHED,
    stopped_scores=lambda state: state.points,
)
