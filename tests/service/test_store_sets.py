"""The shared sets' and marks' contract (base.SharedSets), which every store passes:
bounded sets held to their limit, by any number of racing admissions, with or without a
sliding window; a key marked once until its mark expires (the `store_factory` fixture
gives one store per backend)."""

from __future__ import annotations

import asyncio

from service.store.base import Admission
from tests.support.aio import async_test
from tests.support.stores import StoreFactory


@async_test
async def test_admit_holds_a_set_to_its_limit_until_a_member_is_released(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        for member in ("a", "b", "c"):
            assert await store.admit("live:ip:1", member, 3, 1000) == Admission(True)
        assert await store.admit("live:ip:1", "d", 3, 2000) == Admission(False, None)
        assert await store.admit("live:ip:1", "b", 3, 2000) == Admission(True)  # already in
        assert await store.admit("live:ip:2", "d", 3, 2000) == Admission(True)  # another set
        await store.release("live:ip:1", "b")
        await store.release("live:ip:1", "nobody")
        assert await store.members("live:ip:1", 9_999_999) == ["a", "c"]
        assert await store.admit("live:ip:1", "d", 3, 3000) == Admission(True)
        assert await store.members("live:ip:1", 3000) == ["a", "c", "d"]


@async_test
async def test_admit_with_a_ttl_is_a_sliding_window_that_says_when_to_come_back(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        window = 60_000
        assert (await store.admit("rate:k", "1", 2, 1000, window)).admitted
        assert (await store.admit("rate:k", "2", 2, 21_000, window)).admitted
        assert await store.admit("rate:k", "3", 2, 30_000, window) == Admission(False, 31_000)
        assert await store.members("rate:k", 30_000) == ["1", "2"]
        assert await store.admit("rate:k", "3", 2, 61_000, window) == Admission(True)  # "1" expired at 61 000
        assert await store.members("rate:k", 61_000) == ["2", "3"]
        assert await store.admit("rate:k", "4", 2, 61_001, window) == Admission(False, 19_999)


@async_test
async def test_racing_admissions_never_overfill_a_set(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        assert (await store.admit("quota", "m0", 5, 1000)).admitted  # (connected before the race)
        outcomes = await asyncio.gather(*(store.admit("quota", f"m{i}", 5, 1000) for i in range(1, 30)))
        assert sum(outcome.admitted for outcome in outcomes) == 4
        assert len(await store.members("quota", 1000)) == 5


@async_test
async def test_a_key_is_marked_once_until_its_mark_expires(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        assert await store.mark_once("ticket-1", 60_000)
        assert not await store.mark_once("ticket-1", 60_000)  # spent
        assert await store.mark_once("ticket-2", 60_000)  # another key is another mark
        racing = await asyncio.gather(*(store.mark_once("ticket-3", 60_000) for _ in range(20)))
        assert racing.count(True) == 1
        assert await store.mark_once("brief", 50)
        deadline = asyncio.get_running_loop().time() + 10
        while not await store.mark_once("brief", 50):  # refused until the mark expires, then marked again
            assert asyncio.get_running_loop().time() < deadline, "the mark never expired"
            await asyncio.sleep(0.01)
        assert not await store.mark_once("ticket-1", 60_000)
