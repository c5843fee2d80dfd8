"""The store is made of small parts (service/store/base.py): every backend implements
each part's every method with the signature the part declares (written once there),
and an append's or a creation's arguments are one frozen value."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from service.store.base import PARTS, AppendRequest, Coordination, EventStore, NewGame
from service.store.memory import MemoryStore
from service.store.memory_coordination import MemoryCoordination
from service.store.redis import RedisStore
from service.store.redis_coordination import RedisCoordination


def declared(part: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(part).items()
        if not name.startswith("_") and inspect.isfunction(member)
    }


@pytest.mark.parametrize(
    ("backend", "parts"),
    [
        (MemoryStore, PARTS),
        (RedisStore, PARTS),
        (MemoryCoordination, (Coordination,)),
        (RedisCoordination, (Coordination,)),
    ],
)
def test_every_backend_implements_each_part_as_declared(backend: type, parts: tuple[type, ...]) -> None:
    wrong = []
    for part in parts:
        for name, signature in declared(part).items():
            implemented = getattr(backend, name, None)
            if implemented is None:
                wrong.append(f"{backend.__name__} lacks {part.__name__}.{name}")
            elif inspect.signature(implemented) != signature:
                wrong.append(f"{backend.__name__}.{name}{inspect.signature(implemented)} is not {signature}")
    assert not wrong, "\n".join(wrong)


def test_the_store_is_its_parts_and_nothing_else() -> None:
    whole = {name for name in dir(EventStore) if not name.startswith("_")}
    assert whole - {name for part in PARTS for name in declared(part)} == {"coordination"}


def test_an_append_and_a_creation_are_one_frozen_value_each() -> None:
    request = AppendRequest("g1", 1, [b"e2"], "c1", b"f", "active", b"s", 2000)
    game = NewGame("g1", "mooki", "active", b"r", b"s", [b"e1"], 1000)
    for value in (request, game):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.game_id = "g2"  # type: ignore[misc]
    assert (request.after, request.counters_revision, game.listed) == (b"", None, True)
