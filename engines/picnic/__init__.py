"""Le pique-nique de Facteur Souris (rulebook: ../shared/seeds/004_*.txt, in French)."""

from engines.picnic.engine import ENGINE

__all__ = ["ENGINE"]
