"""Mau Mau – Pirates & Compagnie (rulebook: ../shared/seeds/003_*.txt, in French).

The game as this server plays it: its registration (engines/registration.py)."""

from dataclasses import replace

from engines.pirates import describe, hints, proof, text
from engines.pirates.data import DATA
from engines.pirates.engine import ENGINE
from engines.registration import Registration

GAME = Registration(
    engine=ENGINE,
    describer=replace(describe.DESCRIBER, explain_hint=hints.explain),  # its words, and its hints' reasons
    proof=proof.PROOF,
    data=DATA,
    render_view=text.render_view,
    play_seats=3,  # more fun with three ships
)

__all__ = ["ENGINE", "GAME"]
