"""End-of-game scoring: sorting collections, trophies, the Spider's mischief, stars.

Kept apart from the turn rules so the rulebooks' scoring examples can be checked on
plain numbers as well as through whole games."""

from __future__ import annotations

from collections.abc import Sequence

from engines.mooki.cards import FAMILIES, Face, FamilyId, family_index
from engines.mooki.state import Placed, Result, Scoring


def tally(collections: Sequence[Sequence[Placed]]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Per-family counts per seat (Legendary Mookies count 2) and Spiders per seat."""
    counts = [[0] * len(collections) for _ in FAMILIES]
    spiders = [0] * len(collections)
    for seat, collection in enumerate(collections):
        for placed in collection:
            index, weight = _COUNTS.get(placed.face) or _counted(placed.face)
            if index < 0:
                spiders[seat] += 1
            else:
                counts[index][seat] += weight
    return tuple(tuple(c) for c in counts), tuple(spiders)


def _counted(face: Face) -> tuple[int, int]:
    """Where a face counts (its family's index, -1 for a Spider) and for how many: asked
    for every card of both collections at every greedy move, so kept per face."""
    counted = (-1, 0) if face.is_spider else (family_index(face.family), face.weight)
    if len(_COUNTS) < 64:  # the 11 faces there are, and no more from a malformed log
        _COUNTS[face] = counted
    return counted


_COUNTS: dict[Face, tuple[int, int]] = {}


def score(counts: Sequence[Sequence[int]], spiders: Sequence[int]) -> Scoring:
    """Trophies by strict majority; the seat with strictly more Spiders (and at
    least one trophy) is penalised."""
    winners: list[int | None] = []
    for per_seat in counts:
        best = max(per_seat)
        leaders = [seat for seat, n in enumerate(per_seat) if n == best]
        winners.append(leaders[0] if len(leaders) == 1 and best > 0 else None)
    most = max(spiders)
    heavy = [seat for seat, n in enumerate(spiders) if n == most]
    penalised = heavy[0] if len(heavy) == 1 and heavy[0] in winners else None
    return Scoring(
        counts=tuple(tuple(c) for c in counts),
        winners=tuple(winners),
        spiders=tuple(spiders),
        penalised_seat=penalised,
    )


def trophies_won(scoring: Scoring, seat: int) -> tuple[FamilyId, ...]:
    return tuple([family for family, winner in zip(FAMILIES, scoring.winners, strict=True) if winner == seat])


def cheapest_trophy(trophies: Sequence[FamilyId], stars: Sequence[int]) -> FamilyId:
    """The automatic choice for the Spider's penalty: fewest stars, then the first
    in family order."""
    return min(trophies, key=lambda family: (stars[family_index(family)], family))


def final_result(trophies: Sequence[Sequence[FamilyId]], stars: Sequence[int], youngest_seat: int) -> Result:
    """Stars per seat; the most stars wins, the youngest player on a tie."""
    totals = tuple(sum(stars[family_index(f)] for f in held) for held in trophies)
    best = max(totals)
    leaders = [seat for seat, total in enumerate(totals) if total == best]
    if len(leaders) == 1:
        return Result(stars=totals, winner=leaders[0], won_by_age=False)
    return Result(stars=totals, winner=youngest_seat, won_by_age=True)
