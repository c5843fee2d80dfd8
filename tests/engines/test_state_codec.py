"""The state codec of snapshots (engines/state_codec.py): every state of random games
of every kind encodes and decodes to an equal state, a snapshot then the events after
it fold to the state folding every event gives, and what is not an encoded state of
the declared types is refused without running anything."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.contract import SeatInfo, fold
from engines.registry import AnyEngine
from engines.state_codec import CodecError, StateCodec, for_engine
from tests.support import kinds
from tests.support.kinds import EVERY_ENGINE as ENGINES


def random_game(engine: AnyEngine, seed: int, seat_count: int, stop_at: int | None) -> list[Message]:
    """The events of a game of random legal commands (stopped at `stop_at` events, if any)."""
    rng = random.Random(seed)
    seats = [SeatInfo(age=rng.randint(4, 60)) for _ in range(seat_count)]
    options = engine.resolve_options(short_options(engine), seats)
    events: list[Message] = list(engine.setup(options, seats, rng))
    state = fold(engine, events)
    while not engine.status(state).finished:
        if stop_at is not None and len(events) >= stop_at:
            step = engine.stop(state, stop_at)
        else:
            seat = engine.status(state).to_act[0]
            step = engine.decide(state, seat, rng.choice(engine.legal_commands(state, seat)), rng)
        events += step
        state = fold(engine, step, state)
    return events


def short_options(engine: AnyEngine) -> Any:
    return kinds.short_options(engine.kind)  # a Pirates race of one round: random play repeats itself past that


@given(
    kind=st.sampled_from(sorted(ENGINES)),
    seed=st.integers(min_value=0, max_value=2**32),
    seats=st.integers(min_value=1, max_value=4),
    stop=st.one_of(st.none(), st.integers(min_value=1, max_value=120)),
    data=st.data(),
)
@settings(max_examples=max(settings().max_examples // 4, 20))
def test_a_snapshot_then_the_events_after_it_fold_to_the_state_of_every_event(
    kind: str, seed: int, seats: int, stop: int | None, data: st.DataObject
) -> None:
    engine = ENGINES[kind]
    codec = for_engine(engine)
    events = random_game(engine, seed, min(max(seats, engine.min_seats), engine.max_seats), stop)
    states = [engine.initial_state()]
    for event in events:
        states.append(engine.evolve(states[-1], event))
    for version in data.draw(st.lists(st.integers(0, len(events)), min_size=1, max_size=8), label="versions"):
        restored = codec.decode(codec.encode(states[version]))
        assert restored == states[version]
        assert type(restored) is type(states[version])
        assert codec.encode(restored) == codec.encode(states[version]), "one encoding per state"
        assert fold(engine, events[version:], restored) == states[-1]


def test_every_kind_has_a_codec_and_a_changed_state_class_gets_another_name() -> None:
    names = {kind: for_engine(engine).name for kind, engine in ENGINES.items()}
    assert len(set(names.values())) == len(names)

    @dataclass(frozen=True, slots=True)
    class Before:
        cards: tuple[int, ...] = ()

    @dataclass(frozen=True, slots=True)
    class After:
        cards: tuple[int, ...] = ()
        extra: int | None = None

    assert StateCodec(Before).name != StateCodec(After).name


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b"[]",
        b'{"MookiState": [1, 2]}',
        b'{"os.system": ["rm -rf /"]}',
        b'{"__reduce__": []}',
        b"[[[[[[[[[[" * 10_000,
    ],
)
def test_what_is_not_an_encoded_state_is_refused(data: bytes) -> None:
    with pytest.raises(CodecError):
        for_engine(ENGINES["mooki"]).decode(data)


def test_a_value_of_another_type_than_declared_is_refused() -> None:
    engine = ENGINES["pirates"]
    codec = for_engine(engine)
    tree = json.loads(codec.encode(fold(engine, random_game(engine, 1, 2, 30))))
    ((name, fields),) = tree.items()
    for index, wrong in ((0, "3"), (0, True), (2, 2.5), (5, [[1, 2, 3]])):  # phase, phase, seat_count, round_first_seat
        changed = list(fields)
        changed[index] = wrong
        with pytest.raises(CodecError):
            codec.decode(json.dumps({name: changed}).encode())
