"""What the property suite proves of Tic-tac-toe (docs/NEW_GAME.md, "A game that
hides nothing"), from its rules as written: nothing is conserved (each move adds a
mark), the game ends at a row of three or a full grid, the moves one could send,
and, in one declaration, that nobody is hidden anything."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from ludotheque.tictactoe.v1 import tictactoe_pb2 as pb

from engines.registration import Proof
from engines.tictactoe.rules import ROWS, TicTacToeState


def inventory(state: TicTacToeState) -> Counter[Hashable]:
    return Counter()  # nothing is conserved: each move draws a new mark


def outcome(state: TicTacToeState) -> tuple[int, ...] | None:
    """Three of X (the first seat's) or of O in a row win; a full grid is a draw."""
    if not state.started:
        return None
    for seat, mark in enumerate((pb.MARK_X, pb.MARK_O)):
        if any(all(state.grid[square] == mark for square in row) for row in ROWS):
            return (seat,)
    return () if all(state.grid) else None


def command_universe(state: TicTacToeState) -> list[pb.Command]:
    squares = [pb.Command(place=pb.Place(square=square)) for square in range(10)]  # 9 is off the grid
    return [*squares, pb.Command(place=pb.Place(square=2**32 - 1)), pb.Command()]


PROOF: Proof[TicTacToeState, pb.Command] = Proof(
    inventory=inventory,
    command_universe=command_universe,
    outcome=outcome,
    max_events=11,  # the grid, nine marks at most, the end
    random_options=lambda rng, seats: pb.Options(),
    hides_nothing=True,
)
