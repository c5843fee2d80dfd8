"""Engines' evolve_all (a replay's fold) gives the state that evolving one event at a
time gives, from the start or from any state in between."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.contract import SeatInfo
from tests.support.kinds import EVERY_ENGINE as ENGINES


def _game(kind: str, seed: int, moves: int, stopped: bool = False) -> tuple[list[Any], list[Any]]:
    """A random game's events, and the state after each (evolved one at a time);
    `stopped`: stopped at its event limit after the moves, if not over (engines/limits.py)."""
    engine = ENGINES[kind]
    rng = random.Random(seed)
    count = rng.randint(max(engine.min_seats, 2), engine.max_seats)
    seats = [SeatInfo(age=20 + i) for i in range(count)]
    events = list(engine.setup(engine.resolve_options(engine.options_type(), seats), seats, rng))
    state = engine.initial_state()
    states = [state]
    for event in events:
        state = engine.evolve(state, event)
        states.append(state)
    for _ in range(moves):
        status = engine.status(state)
        if status.finished or not status.to_act:
            break
        seat = status.to_act[0]
        for event in engine.decide(state, seat, rng.choice(engine.legal_commands(state, seat)), rng):
            state = engine.evolve(state, event)
            events.append(event)
            states.append(state)
    if stopped and not engine.status(state).finished:
        for event in engine.stop(state, len(events)):
            state = engine.evolve(state, event)
            events.append(event)
            states.append(state)
    return events, states


@pytest.mark.parametrize("kind", sorted(ENGINES))
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 400), cut=st.floats(0, 1), stopped=st.booleans())
def test_folding_at_once_gives_the_states_of_one_event_at_a_time(
    kind: str, seed: int, moves: int, cut: float, stopped: bool
) -> None:
    engine = ENGINES[kind]
    events, states = _game(kind, seed, moves, stopped)
    assert engine.evolve_all(states[0], events) == states[-1]
    middle = int(cut * len(events))
    assert engine.evolve_all(states[middle], events[middle:]) == states[-1]
    assert engine.evolve_all(states[0], events[:middle]) == states[middle]
