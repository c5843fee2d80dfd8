"""How long games get: events per game of bots, per kind, seat count and bots.

    python scripts/game_lengths.py                   # every kind, 100 games per line
    python scripts/game_lengths.py pirates --games 300

What the default event limits of the engines (`default_event_limit`, engines/limits.py)
are measured against: the longest games bots play, greedy bots standing for people."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.contract import SeatInfo
from engines.registry import ENGINES, AnyEngine

GIVE_UP = 200_000  # events: a game longer than this is reported as never ending


def game_length(engine: AnyEngine, bots: list[str], seed: int) -> int | None:
    """The events of one game of `bots` with the default options (None: past GIVE_UP)."""
    rng = random.Random(seed)
    seats = [SeatInfo()] * len(bots)
    options = engine.resolve_options(engine.options_type(), seats)
    state = engine.initial_state()
    events = engine.setup(options, seats, rng)
    for event in events:
        state = engine.evolve(state, event)
    count = len(events)
    while count < GIVE_UP:
        status = engine.status(state)
        if status.finished:
            return count
        seat = status.to_act[0]
        command = engine.bots[bots[seat]](state, seat, rng)
        for event in engine.decide(state, seat, command, rng):
            state = engine.evolve(state, event)
            count += 1
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kinds", nargs="*", default=sorted(ENGINES))
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    for kind in args.kinds:
        engine = ENGINES[kind]
        for seat_count in range(engine.min_seats, engine.max_seats + 1):
            for name, bots in (
                ("greedy", ["greedy"] * seat_count),
                ("random", ["random"] * seat_count),
                ("mixed", (["greedy", "random"] * seat_count)[:seat_count]),
            ):
                start = time.perf_counter()
                lengths = sorted(n for n in (game_length(engine, bots, s) for s in range(args.games)) if n is not None)
                endless = args.games - len(lengths)
                took = time.perf_counter() - start
                median = lengths[len(lengths) // 2] if lengths else "-"
                longest = lengths[-1] if lengths else "-"
                print(
                    f"{kind:8} {seat_count} seats {name:6}: median {median}, longest {longest}, "
                    f"never ending {endless} ({took:.1f} s)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
