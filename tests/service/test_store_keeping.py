"""Retention's contract (base.GameKeeping), which every store passes: games listed for
review when their time comes, one owner at a time expiring a game, a deleted game gone
everywhere (the `store_factory` fixture gives one store per backend)."""

from __future__ import annotations

import asyncio
import time

import pytest

from service.store.base import (
    AppendRequest,
    GameNotFound,
    Keep,
    NewGame,
    StoredSnapshot,
)
from tests.support.aio import async_test
from tests.support.stores import StoreFactory, append, create_stored_game


@async_test
async def test_games_are_listed_for_review_when_their_time_comes(store_factory: StoreFactory) -> None:
    now = int(time.time() * 1000)  # Redis expires keys by its own clock: times must be real ones
    later = now + 86_400_000
    async with store_factory() as store:
        await store.create(NewGame("late", "mooki", "active", b"r", b"s", [b"e1"], now, Keep(now + 9000, later)))
        await store.create(NewGame("soon", "mooki", "active", b"r", b"s", [b"e1"], now, Keep(now + 5000, later)))
        await store.create(NewGame("never", "mooki", "active", b"r", b"s", [b"e1"], now))
        assert await store.due_games(now + 4999, 10) == []
        assert await store.due_games(now + 9000, 10) == ["soon", "late"]
        assert await store.due_games(now + 9000, 1) == ["soon"]
        await store.keep("soon", Keep(now + 20000, later))  # a review found it must stay
        await store.append(
            AppendRequest("late", 1, [b"e2"], "c", b"f", "finished", b"s", now, Keep(0, 0))
        )  # kept forever
        assert await store.due_games(now + 19999, 10) == []
        assert await store.due_games(now + 20000, 10) == ["soon"]
        with pytest.raises(GameNotFound):
            await store.keep("nope", Keep(now, later))


@async_test
async def test_one_owner_at_a_time_may_expire_a_game(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        assert await store.claim("g1", "process-a", 5000, 1000)
        assert not await store.claim("g1", "process-b", 6000, 4999)
        assert await store.claim("g1", "process-a", 7000, 4999)  # its own claim, renewed
        assert await store.claim("g1", "process-b", 9000, 7001)  # a's claim ran out
        with pytest.raises(GameNotFound):
            await store.claim("nope", "process-a", 5000, 1000)


@async_test
async def test_a_deleted_game_is_gone_everywhere_and_its_followers_are_told(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, "g1", events=3)
        await create_stored_game(store, "g2", events=2)
        await store.put_snapshots("g1", [StoredSnapshot(2, b"snap")])
        await store.keep("g1", Keep(500, int(time.time() * 1000) + 86_400_000))
        follower = store.subscribe("g1", 1)
        assert [(await anext(follower)).version for _ in range(3)] == [1, 2, 3]
        waiting = asyncio.ensure_future(anext(follower))
        assert not await store.delete("g1", version=2)  # no longer at that version: kept
        assert (await store.info("g1")).version == 3
        assert await store.delete("g1", version=3)
        with pytest.raises(GameNotFound):
            await waiting
        for gone in (store.info("g1"), store.read("g1", 1), store.snapshot("g1"), store.delete("g1")):
            with pytest.raises(GameNotFound):
                await gone
        with pytest.raises(GameNotFound):
            await append(store, "g1", 3, b"late")
        assert [g.game_id for g in (await store.list_games("", "", 10, "")).games] == ["g2"]
        assert [g.game_id for g in (await store.list_games("", "", 10, "", listed_only=True)).games] == ["g2"]
        assert await store.due_games(1000, 10) == []
        await store.forget("g1")  # unlisting again changes nothing
        assert (await store.info("g2")).version == 2
