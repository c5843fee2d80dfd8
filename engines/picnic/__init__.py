"""Le pique-nique de Facteur Souris (rulebook: ../shared/seeds/004_*.txt, in French).

The game as this server plays it: its registration (engines/registration.py)."""

from engines.picnic import describe, proof, text
from engines.picnic.data import DATA
from engines.picnic.engine import ENGINE
from engines.registration import Registration

GAME = Registration(
    engine=ENGINE,
    describer=describe.DESCRIBER,
    proof=proof.PROOF,
    data=DATA,
    render_view=text.render_view,
)

__all__ = ["ENGINE", "GAME"]
