"""Tic-tac-toe's rules as a decider (docs/NEW_GAME.md, "A game that hides nothing"):
its state, and setup, decide, evolve, legal_commands and status. No data files (its
grid is its rules), no randomness, nothing hidden."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ludotheque.tictactoe.v1 import tictactoe_pb2 as pb

from engines import limits
from engines.contract import InvalidSetup, RuleViolation, SeatInfo, Status, playing
from engines.evolving import Rule, by_kind

# Recorded in every event: bump it when a change would replay a recorded game differently.
RULES_VERSION = "tictactoe/1"
SEATS = range(2, 3)  # two players
SIZE = 3  # squares a side
SQUARES = SIZE * SIZE
MARKS = (pb.MARK_X, pb.MARK_O)  # by seat: X plays first
# The rows that win, as squares: the rows, the columns, the two diagonals.
ROWS: tuple[tuple[int, ...], ...] = (
    *(tuple(range(row * SIZE, row * SIZE + SIZE)) for row in range(SIZE)),
    *(tuple(range(column, SQUARES, SIZE)) for column in range(SIZE)),
    tuple(range(0, SQUARES, SIZE + 1)),
    tuple(range(SIZE - 1, SQUARES - 1, SIZE - 1)),
)


@dataclass(frozen=True, slots=True)
class TicTacToeState:
    """The whole game, seen alike by all: the squares' marks, whose turn, the end."""

    started: bool = False
    grid: tuple[pb.Mark.ValueType, ...] = ()  # a Mark per square, row by row
    to_act: int = 0
    winners: tuple[int, ...] = ()
    row: tuple[int, ...] = ()  # the squares of the winning row
    finished: bool = False


def resolve_options(options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
    if len(seats) not in SEATS:
        raise InvalidSetup(f"Tic-tac-toe is for 2 players, not {len(seats)}.")
    return pb.Options()


def setup(options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
    return [pb.Event(game_started=pb.GameStarted(seat_count=len(seats)))]


def made_row(grid: Sequence[int], mark: int) -> tuple[int, ...]:
    """The first row of three `mark`s in `grid` (empty: none)."""
    return next((row for row in ROWS if all(grid[square] == mark for square in row)), ())


def decide(state: TicTacToeState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
    if not state.started:
        raise RuleViolation("not_started", "The game has not started.")
    if state.finished:
        raise RuleViolation("game_over", "The game is over.")
    if seat != state.to_act:
        raise RuleViolation("not_your_turn", "It is not your turn.")
    if command.WhichOneof("action") != "place":
        raise RuleViolation("unknown_command", "Put your mark in an empty square.")
    square = command.place.square
    if square >= SQUARES:
        raise RuleViolation("no_such_square", f"The squares are numbered 0 to {SQUARES - 1}.")
    if state.grid[square]:
        raise RuleViolation("square_taken", "That square is taken: pick an empty one.")
    mark = MARKS[seat]
    events = [pb.Event(mark_placed=pb.MarkPlaced(seat=seat, square=square, mark=mark))]
    grid = (*state.grid[:square], mark, *state.grid[square + 1 :])
    row = made_row(grid, mark)
    if row:
        events.append(pb.Event(game_finished=pb.GameFinished(winners=[seat], row=row)))
    elif all(grid):
        events.append(pb.Event(game_finished=pb.GameFinished()))  # a full grid without a row: a draw
    return events


def _game_started(state: TicTacToeState, started: pb.GameStarted) -> TicTacToeState:
    return TicTacToeState(started=True, grid=(pb.MARK_UNSPECIFIED,) * SQUARES)


def _mark_placed(state: TicTacToeState, placed: pb.MarkPlaced) -> TicTacToeState:
    square = placed.square
    grid = (*state.grid[:square], placed.mark, *state.grid[square + 1 :])
    return replace(state, grid=grid, to_act=1 - placed.seat)


def _game_finished(state: TicTacToeState, finished: pb.GameFinished) -> TicTacToeState:
    return replace(state, finished=True, winners=tuple(finished.winners), row=tuple(finished.row))


# Each kind of event's rule, above; evolve applies the rule of an event's kind.
_EVOLVE: dict[str, Rule[TicTacToeState]] = {
    "game_started": _game_started,
    "mark_placed": _mark_placed,
    "game_finished": _game_finished,
    "game_stopped": limits.game_stopped,  # every game's: it stops where it stands
}
evolve = by_kind(pb.Event, _EVOLVE)


def legal_commands(state: TicTacToeState, seat: int) -> list[pb.Command]:
    if not state.started or state.finished or seat != state.to_act:
        return []
    return [pb.Command(place=pb.Place(square=square)) for square, mark in enumerate(state.grid) if not mark]


def status(state: TicTacToeState) -> Status:
    if not state.finished:
        return playing(state.to_act if state.started else None)
    if not state.winners:
        return Status(finished=True, scores=(0, 0), summary="A draw: the grid is full and nobody made a row.")
    (winner,) = state.winners
    scores = tuple(int(seat == winner) for seat in range(2))
    return Status(finished=True, winners=state.winners, scores=scores, summary=f"{{{winner}}} wins with a row.")
