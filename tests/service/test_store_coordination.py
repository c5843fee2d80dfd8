"""Coordination's contract (base.Coordination), which every store passes: claims kept by
their first value (or replaced from the value they hold), holders ended when released
or at their time, process leases renewed and forgotten, notices to every reader in
order, the schedule soonest first (the `store_factory` fixture gives one store per
backend)."""

from __future__ import annotations

import asyncio

from tests.support.aio import async_test
from tests.support.stores import StoreFactory


@async_test
async def test_a_key_is_claimed_once_and_keeps_its_first_value(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        claims = store.coordination
        assert await claims.lookup("code:K7QM2X") is None
        assert await claims.claim("code:K7QM2X", "game-1", 60_000) == "game-1"
        assert await claims.claim("code:K7QM2X", "game-2", 60_000) == "game-1"  # taken: its value stands
        assert await claims.lookup("code:K7QM2X") == "game-1"
        racing = await asyncio.gather(*(claims.claim("rematch:g1", f"game-{i}", 60_000) for i in range(20)))
        assert len(set(racing)) == 1 and racing[0] in {f"game-{i}" for i in range(20)}
        assert await claims.claim("brief", "a", 30) == "a"
        deadline = asyncio.get_running_loop().time() + 10
        while await claims.claim("brief", "b", 30_000) != "b":  # its claim expires, then another may claim it
            assert asyncio.get_running_loop().time() < deadline, "the claim never expired"
            await asyncio.sleep(0.01)
        assert await claims.lookup("brief") == "b"


@async_test
async def test_a_claim_is_replaced_only_from_the_value_it_holds(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        claims = store.coordination
        assert await claims.replace("match", "none", "game-1", 60_000) == "game-1"  # nothing held: set
        assert await claims.replace("match", "game-0", "game-2", 60_000) == "game-1"  # not what it holds
        assert await claims.replace("match", "game-1", "game-2", 60_000) == "game-2"
        assert await claims.lookup("match") == "game-2"
        racing = await asyncio.gather(*(claims.replace("match", "game-2", f"next-{i}", 60_000) for i in range(20)))
        assert len(set(racing)) == 1 and racing[0].startswith("next-")  # of racing replacements, one wins
        assert await claims.lookup("match") == racing[0]


@async_test
async def test_holders_end_when_released_or_when_their_time_is_up(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        holds = store.coordination
        assert await holds.hold("g1", "0/a", 1500, 1000)  # a new hold
        assert await holds.hold("g1", "1/b", None, 1000)  # held until released
        assert await holds.hold("g2", "0/c", 3000, 1000)
        assert await holds.holders("g1", 1000) == {"0/a": 1500, "1/b": None}
        assert await holds.holders("g1", 1500) == {"1/b": None}  # 0/a's time is up
        assert await holds.hold("g1", "0/a", 2500, 2000)  # new again: it had ended
        assert not await holds.hold("g1", "0/a", 2600, 2000)  # renewed
        assert not await holds.hold("g1", "1/b", None, 2000)  # still held
        assert await holds.holders("g1", 2000) == {"0/a": 2600, "1/b": None}
        await holds.unhold("g1", ["1/b", "nobody"])
        assert await holds.holders("g1", 2000) == {"0/a": 2600}
        assert await holds.holders("g1", 10**12) == {}
        assert await holds.holders("g2", 2000) == {"0/c": 3000}
        assert await holds.holders("g3", 2000) == {}


@async_test
async def test_a_process_lease_is_renewed_once_for_all_and_ended_ones_are_forgotten(
    store_factory: StoreFactory,
) -> None:
    async with store_factory() as store:
        leases = store.coordination
        assert await leases.renew_process("p1", 1000, 500, 10_000) == (True, {"p1": 1500})  # a new lease
        assert await leases.renew_process("p2", 1000, 2000, 10_000) == (True, {"p1": 1500, "p2": 3000})
        assert await leases.renew_process("p2", 1200, 2000, 10_000) == (False, {"p1": 1500, "p2": 3200})  # renewed
        # p1's lease ended: it is remembered (as ended), and new again when renewed.
        assert await leases.processes(["p1", "p2", "nobody"]) == {"p1": 1500, "p2": 3200}
        assert await leases.renew_process("p1", 2000, 500, 10_000) == (True, {"p1": 2500, "p2": 3200})
        assert await leases.processes([]) == {}
        # Long ended: forgotten.
        assert await leases.renew_process("p3", 20_000, 500, 10_000) == (True, {"p3": 20_500})
        assert await leases.processes(["p1", "p2"]) == {}


@async_test
async def test_notices_reach_every_reader_in_order(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        coordination = store.coordination
        readers = [coordination.notices() for _ in range(2)]
        received: list[list[str]] = [[], []]

        async def read(index: int) -> None:
            async for topic in readers[index]:
                received[index].append(topic)

        tasks = [asyncio.create_task(read(i)) for i in range(2)]
        deadline = asyncio.get_running_loop().time() + 10
        while not all(received):  # a reader hears what is notified once it reads
            assert asyncio.get_running_loop().time() < deadline, "no notice arrived"
            await coordination.notify("ready")
            await asyncio.sleep(0.01)
        for topic in ("g1", "g2", "g1"):
            await coordination.notify(topic)
        while any(len(topics) < 3 or topics[-3:] != ["g1", "g2", "g1"] for topics in received):
            assert asyncio.get_running_loop().time() < deadline, f"notices missing: {received}"
            await asyncio.sleep(0.01)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


@async_test
async def test_the_schedule_gives_what_is_due_soonest_first(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        schedule = store.coordination
        await schedule.schedule("g1/4", 5000)
        await schedule.schedule("g2/9", 3000)
        await schedule.schedule("g3/2", 7000)
        assert await schedule.due(6000, 10) == [("g2/9", 3000), ("g1/4", 5000)]
        assert await schedule.due(6000, 1) == [("g2/9", 3000)]
        await schedule.schedule("g1/4", 8000)  # moved
        await schedule.unschedule("g2/9")
        await schedule.unschedule("nothing")
        assert await schedule.due(6000, 10) == []
        assert await schedule.due(10_000, 10) == [("g3/2", 7000), ("g1/4", 8000)]
