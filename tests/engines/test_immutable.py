"""engines/immutable.py: the engines' fast replace does what dataclasses.replace does."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from engines.contract import SeatInfo, fold
from engines.immutable import replacer
from tests.support.kinds import EVERY_ENGINE as ENGINES


def _states(kind: str, moves: int = 30) -> list[Any]:
    engine = ENGINES[kind]
    rng = random.Random(5)
    seats = [SeatInfo(age=20 + i) for i in range(max(engine.min_seats, 2))]
    state = fold(engine, engine.setup(engine.resolve_options(engine.options_type(), seats), seats, rng))
    states = [engine.initial_state(), state]
    for _ in range(moves):
        status = engine.status(state)
        if status.finished:
            break
        seat = status.to_act[0]
        for event in engine.decide(state, seat, rng.choice(engine.legal_commands(state, seat)), rng):
            state = engine.evolve(state, event)
        states.append(state)
    return states


@pytest.mark.parametrize("kind", sorted(ENGINES))
def test_replacing_fields_gives_what_dataclasses_replace_gives(kind: str) -> None:
    states = _states(kind)
    replace = replacer(type(states[0]))
    names = [field.name for field in dataclasses.fields(states[0])]
    for index, state in enumerate(states):
        other = states[(index + 1) % len(states)]
        changes = {name: getattr(other, name) for name in names[index % len(names) :: 3]}
        replaced = replace(state, **changes)
        assert replaced == dataclasses.replace(state, **changes)
        assert type(replaced) is type(state)
        assert replace(state) == state and replace(state) is not state
        with pytest.raises(dataclasses.FrozenInstanceError):  # still frozen: an instance of the state's class
            setattr(replaced, names[0], getattr(state, names[0]))


def test_unknown_fields_are_refused_as_dataclasses_replace_refuses_them() -> None:
    state = ENGINES["mooki"].initial_state()
    with pytest.raises(TypeError):
        replacer(type(state))(state, no_such_field=1)


def test_only_slotted_dataclasses_without_a_base_are_accepted() -> None:
    @dataclasses.dataclass(frozen=True)
    class Checked:
        value: int

        def __post_init__(self) -> None:
            assert self.value >= 0

    with pytest.raises(TypeError):
        replacer(Checked)

    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        value: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Base:
        value: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived(Base):
        other: int

    for cls in (Unslotted, Derived):
        with pytest.raises(TypeError):
            replacer(cls)
    assert replacer(Base)(Base(1), value=2) == Base(2)
