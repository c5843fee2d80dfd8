"""Tic-tac-toe, the example of docs/NEW_GAME.md for a game that hides nothing: a
folder of its own, no data files, no presets, and nothing shared edited. An example:
served only when asked (`ludotheque serve --example-games`, LUDOTHEQUE_EXAMPLE_GAMES=1)."""

from engines.registration import Registration
from engines.tictactoe import describe, proof
from engines.tictactoe.engine import ENGINE

GAME = Registration(engine=ENGINE, describer=describe.DESCRIBER, proof=proof.PROOF, example=True)

__all__ = ["ENGINE", "GAME"]
