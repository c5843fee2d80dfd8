"""The one budget of a process's heavy reads: the reads whose cost grows with a game's
length rather than with what they answer (ReplayGame folding a long past, ReplayLog,
ExportGame), so that any number of them cannot starve the players' moves.

At most `at_once` run at once (one: two threads folding beside the event loop starve it
of the GIL, a move then waiting ~5 ms at each of its switches), each in a worker thread (engines are pure, the
state they fold is their own), and at most `waiting` more wait their turn; past both, a
read is refused with RESOURCE_EXHAUSTED (`HEAVY_READS`, try again in a second). The
event loop, which plays every move, so keeps serving between them: it holds the GIL
for Python's switch interval at most (5 ms) while a heavy read runs, not the whole
read."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TypeVar

from service.app.model.errors import resource_exhausted

T = TypeVar("T")

HEAVY_AT_ONCE = 1
HEAVY_WAITING = 16
# How long a thread holds the GIL while another waits for it (Python's default: 5 ms). A
# move waits for the GIL at each of its steps while a heavy read folds beside it; 1 ms
# keeps that wait short (a ReplayLog flood: the victim's move p99 149 ms at 5 ms).
SWITCH_INTERVAL = 0.001


def share_the_gil() -> None:
    """Sets the process's GIL switch interval (once, as the server starts)."""
    sys.setswitchinterval(SWITCH_INTERVAL)


class HeavyReads:
    def __init__(self, at_once: int = HEAVY_AT_ONCE, waiting: int = HEAVY_WAITING) -> None:
        self._turns = asyncio.Semaphore(at_once)
        self._max_waiting = waiting
        self._waiting = 0
        self.served = 0  # heavy reads run so far (a test counts them)

    async def run(self, what: str, work: Callable[[], T]) -> T:
        """`work()` in a worker thread, in its turn; `what`: the read, for its refusal."""
        if self._turns.locked() and self._waiting >= self._max_waiting:
            raise resource_exhausted(
                "HEAVY_READS",
                what,
                "Many long games are being read right now: try again in a moment.",
                1000,
            )
        self._waiting += 1
        try:
            await self._turns.acquire()
        finally:
            self._waiting -= 1
        try:
            self.served += 1
            return await asyncio.to_thread(work)
        finally:
            self._turns.release()
