"""Event stores: one interface (base.EventStore), one implementation per backend."""

from __future__ import annotations

from service.store.base import EventStore
from service.store.memory import MemoryStore


def open_store(url: str) -> EventStore:
    """The store named by `url`: "memory" (the embedded default)."""
    if url in ("", "memory", "memory://"):
        return MemoryStore()
    raise ValueError(f"unknown store {url!r}: use 'memory'")
