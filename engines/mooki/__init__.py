"""Mooki Island (rulebooks: ../shared/seeds/000_*.txt in French, 001_*.txt in English).

The game as this server plays it: its registration (engines/registration.py)."""

from dataclasses import replace

from engines.mooki import describe, hints, proof, text
from engines.mooki.data import DATA
from engines.mooki.engine import ENGINE
from engines.registration import Registration

GAME = Registration(
    engine=ENGINE,
    describer=replace(describe.DESCRIBER, explain_hint=hints.explain),  # its words, and its hints' reasons
    proof=proof.PROOF,
    data=DATA,
    render_view=text.render_view,
)

__all__ = ["ENGINE", "GAME"]
