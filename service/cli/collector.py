"""The garbage collector's thresholds for a long-running server.

A server with thousands of seats holds millions of objects that live as long as their
seats. Python's defaults (700, 10, 10) promote to the oldest generation every object
that outlives about 7,000 allocations: at a human pace that is most of what a seat keeps
between two moves (futures, buffers, the last messages). The oldest generation then grows
a quarter and is scanned whole, a pass over every object in the process: at 10,000 seats,
2.1 million objects, 1.4-1.7 s with the loop stopped, every 6-30 s, which found nothing to
collect (docs/PERFORMANCE.md). With young collections every 50,000 net allocations and
the middle one every 20 of them, an object must outlive about a million allocations to be
promoted: what lives from one move to the next dies before, and the full pass comes when
the heap has really grown. Cycles still go at the young and middle passes as before."""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 100)


def tune() -> None:
    gc.set_threshold(*THRESHOLDS)
