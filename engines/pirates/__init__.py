"""Mau Mau – Pirates & Compagnie (rulebook: ../shared/seeds/003_*.txt, in French)."""

from engines.pirates.engine import ENGINE

__all__ = ["ENGINE"]
