"""Tic-tac-toe behind the engine contract (docs/NEW_GAME.md, "A game that hides
nothing"): one view for everyone, events shown whole, its bots, and the engine."""

from __future__ import annotations

import random

from ludotheque.tictactoe.v1 import tictactoe_pb2 as pb

from engines import limits
from engines.adapter import GameEngine
from engines.contract import Viewer
from engines.tictactoe import rules
from engines.tictactoe.rules import MARKS, TicTacToeState, made_row

# The class of a stopped game's state (engines/limits.py), bound here for pickle.
StoppedTicTacToeState = limits.stopped_class(TicTacToeState, __name__)


class Visibility:
    """Nothing is hidden: every viewer sees the whole grid and every event whole."""

    @staticmethod
    def view(state: TicTacToeState, viewer: Viewer) -> pb.View:
        view = pb.View(
            phase=pb.PHASE_FINISHED if state.finished else pb.PHASE_PLAY if state.started else pb.PHASE_UNSPECIFIED,
            grid=state.grid,
        )
        if state.started and not state.finished:
            view.active_seat = state.to_act
        if state.finished:
            view.result.winners.extend(state.winners)
            view.result.row.extend(state.row)
        return view

    @staticmethod
    def redact(event: pb.Event, viewer: Viewer) -> pb.Event:
        return event


def _empty(state: TicTacToeState) -> list[int]:
    return [square for square, mark in enumerate(state.grid) if not mark]


def greedy(state: TicTacToeState, seat: int, rng: random.Random) -> pb.Command:
    """Makes a row if it can, else blocks the other's, else takes the centre, else a
    corner, else any square."""
    empty = _empty(state)

    def rows_for(mark: int) -> list[int]:
        return [s for s in empty if made_row((*state.grid[:s], mark, *state.grid[s + 1 :]), mark)]

    mine, theirs = MARKS[seat], MARKS[1 - seat]
    preferred = [*rows_for(mine), *rows_for(theirs), *(s for s in (4, 0, 2, 6, 8) if s in empty), *empty]
    return pb.Command(place=pb.Place(square=preferred[0]))


def random_bot(state: TicTacToeState, seat: int, rng: random.Random) -> pb.Command:
    return pb.Command(place=pb.Place(square=rng.choice(_empty(state))))


ENGINE: GameEngine[TicTacToeState, pb.Command, pb.Event, pb.Options, pb.View] = GameEngine(
    kind="tictactoe",
    rules_version=rules.RULES_VERSION,
    seats=rules.SEATS,
    messages=(pb.Command, pb.Event, pb.Options, pb.View),
    state_type=TicTacToeState,
    rules=rules,
    visibility=Visibility(),
    bots={"greedy": greedy, "random": random_bot},
    default_event_limit=60,  # a game has 11 events at most: the grid, 9 marks, the end
    finished_phase=pb.PHASE_FINISHED,
)
