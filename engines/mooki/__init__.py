"""Mooki Island (rulebooks: ../shared/seeds/000_*.txt in French, 001_*.txt in English)."""

from engines.mooki.engine import ENGINE

__all__ = ["ENGINE"]
