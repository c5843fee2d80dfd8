"""The one percentile every figure of the benchmark is read with: the value below which
a share `q` of the samples lies (the nearest rank), NaN for none."""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(samples: Iterable[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else math.nan
