"""Le pique-nique de Facteur Souris (rulebook: ../shared/seeds/004_*.txt, in French).

The game as this server plays it: its registration (engines/registration.py)."""

from dataclasses import replace

from engines.picnic import describe, hints, proof, text
from engines.picnic.data import DATA
from engines.picnic.engine import ENGINE
from engines.registration import Registration

GAME = Registration(
    engine=ENGINE,
    describer=replace(describe.DESCRIBER, explain_hint=hints.explain),  # its words, and its hints' reasons
    proof=proof.PROOF,
    data=DATA,
    render_view=text.render_view,
)

__all__ = ["ENGINE", "GAME"]
