"""Who counts as the youngest player, from the ages the seats give (rules that say
"the youngest starts" need it; a service does not see its players)."""

from __future__ import annotations

from collections.abc import Sequence

from engines.contract import SeatInfo


def youngest_by_age(seats: Sequence[SeatInfo]) -> int | None:
    """The seat with the lowest age among the seats that give one (the first of
    equals); None when no seat gives an age. A seat without an age (a bot, or a
    player who did not say) is never taken for the youngest."""
    aged = [(seat.age, index) for index, seat in enumerate(seats) if seat.age is not None]
    return min(aged)[1] if aged else None
