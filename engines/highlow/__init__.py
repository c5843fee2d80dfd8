"""Higher or Lower, the example game of docs/NEW_GAME.md: a folder of its own, and
nothing shared edited. An example: served only when asked (`ludotheque serve
--example-games`, LUDOTHEQUE_EXAMPLE_GAMES=1)."""

from engines.highlow import describe, proof
from engines.highlow.engine import ENGINE
from engines.highlow.rules import DATA
from engines.registration import Registration

GAME = Registration(
    engine=ENGINE,
    describer=describe.DESCRIBER,
    proof=proof.PROOF,
    data=DATA,
    example=True,
)

__all__ = ["ENGINE", "GAME"]
