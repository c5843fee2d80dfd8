"""A random.Random that seeds itself on its first draw.

Every decision gets a generator seeded from the game's seed, what it is for and the
version (service/app/model/seeding.py), so that deciding again draws the same numbers. Seeding
one (SHA-512 of the seed text, then Mersenne Twister's key schedule) cost as much as a
Mooki move's whole `decide`, and most decisions draw nothing: this generator pays only
when it is used, and then draws exactly what the one it stands for would."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any


class LazyRandom(random.Random):
    def __new__(cls, make: Callable[[], random.Random]) -> LazyRandom:
        # random.Random's constructor seeds from its argument (or the OS's entropy):
        # a constant is the cheapest; the real state replaces it at the first draw.
        return super().__new__(cls, 0)  # type: ignore[call-arg]  # (typeshed: object.__new__)

    def __init__(self, make: Callable[[], random.Random]) -> None:  # no seeding now
        self._make: Callable[[], random.Random] | None = make
        self.gauss_next = None

    def _ready(self) -> None:
        make = self._make
        if make is not None:
            self._make = None
            super().setstate(make().getstate())

    def random(self) -> float:
        self._ready()
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        self._ready()
        return super().getrandbits(k)

    def randbytes(self, n: int) -> bytes:
        self._ready()
        return super().randbytes(n)

    def getstate(self) -> tuple[Any, ...]:
        self._ready()
        return super().getstate()

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._make = None
        super().setstate(state)

    def seed(self, a: Any = None, version: int = 2) -> None:
        self._make = None
        super().seed(a, version)
