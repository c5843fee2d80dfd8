"""What presence costs Redis while seats sit idle: each process renews one lease per
interval, whatever the number of seats it holds, and a watch of another process's seats
reads nothing until something changes. Counted by the Redis the test starts for itself
(INFO commandstats: every command, those a script runs too)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
import redis

from service.app.observe.metrics import Metrics
from service.app.online.presence import Presence, Sighting
from service.store.redis import RedisStore
from tests.support.aio import async_test
from tests.support.redis import RedisServer, running_redis
from tests.support.stores import redis_stores

TTL_MS = 600  # a renewal every 200 ms
RENEWALS = 6  # intervals counted, per process
WAIT = 30.0
# Commands a renewal runs: the script and what it calls (ZSCORE, ZREMRANGEBYSCORE,
# ZADD, PEXPIRE, ZRANGE).
RENEWAL = {"evalsha": 1, "zscore": 1, "zremrangebyscore": 1, "zadd": 1, "pexpire": 1, "zrange": 1}


def command_calls(counter: redis.Redis) -> dict[str, int]:
    """Calls per command so far, but INFO's own (the test's polling, on one connection)."""
    stats = counter.info("commandstats")
    calls = {name.removeprefix("cmdstat_"): int(stat["calls"]) for name, stat in stats.items()}
    calls.pop("info", None)
    return calls


def now_ms() -> int:
    return int(time.time() * 1000)


async def sighting_of(watch: AsyncIterator[Sighting], online: tuple[int, ...]) -> None:
    async with asyncio.timeout(WAIT):
        while (await anext(watch)).online != online:
            pass


async def wait_for_calls(counter: redis.Redis, command: str, count: int) -> None:
    """Polls until Redis has run `command` `count` times (more than when called)."""
    deadline = time.monotonic() + WAIT
    target = command_calls(counter).get(command, 0) + count
    while command_calls(counter).get(command, 0) < target:
        assert time.monotonic() < deadline, f"{command} never reached {target} calls"
        await asyncio.sleep(0.01)


async def idle_calls(
    redis_server: RedisServer, games: int, *, calling: bool = False, called_first: bool = False
) -> dict[str, int]:
    """The commands Redis runs over RENEWALS intervals while `games` two-seat games sit
    idle: both seats on one process (which watches them, as their sessions do), watched
    from another (as the other players' sessions would). `calling`: meanwhile the seats
    make calls with their tokens, as their sessions' moves do (Viewers.seen). `called_first`:
    the seats called before their sessions opened (as a player joins, then plays), so that
    their calls' holds end while the counting runs."""
    stores: list[RedisStore]
    counter = redis_server.client()
    async with redis_stores(redis_server.url, 2) as stores:
        holder, other = (Presence(store.coordination, now_ms, Metrics(), TTL_MS) for store in stores)
        await holder.start()
        await other.start()
        game_ids = [f"g{index}" for index in range(games)]
        watches = [presence.watch(game_id) for presence in (holder, other) for game_id in game_ids]
        call_ends = 0
        if called_first:
            holder.call_ttl_ms = 2000  # so that the calls' holds end while the counting runs
            call_ends = now_ms() + holder.call_ttl_ms
            for game_id in game_ids:
                holder.seen(game_id, 0)
                holder.seen(game_id, 1)
        for game_id in game_ids:
            holder.connect(game_id, 0)
            holder.connect(game_id, 1)
        for watch in watches:
            await sighting_of(watch, (0, 1))
        await wait_for_calls(counter, "evalsha", 2)  # past whatever the connections set off

        async def call() -> None:
            while True:
                for game_id in game_ids:
                    holder.seen(game_id, 0)
                    holder.seen(game_id, 1)
                await asyncio.sleep(TTL_MS / 1000 / 10)  # more often than a call's hold is renewed

        calls = asyncio.create_task(call()) if calling else None
        before, started = command_calls(counter), time.monotonic()
        await wait_for_calls(counter, "evalsha", 2 * RENEWALS)  # the two processes' renewals
        while now_ms() < call_ends + TTL_MS:  # past the calls' holds' end, and the watches' look then
            await wait_for_calls(counter, "evalsha", 2)
        after, elapsed = command_calls(counter), time.monotonic() - started
        if calls is not None:
            calls.cancel()
        assert await other.online(game_ids[-1]) == (0, 1)
        for watch in watches:
            await watch.aclose()  # type: ignore[attr-defined]
        await holder.stop()
        await other.stop()
    counter.close()
    counted = {name: calls - before.get(name, 0) for name, calls in after.items() if calls > before.get(name, 0)}
    # The notices' blocking reads (half a second each, per process), whatever the seats.
    xreads = counted.pop("xread", 0)
    assert xreads <= 2 * (elapsed / 0.5 + 2), (xreads, elapsed)
    return counted


@pytest.mark.slow
@async_test
async def test_idle_seats_cost_redis_one_renewal_per_process_per_interval_whatever_their_number() -> None:
    with running_redis() as server:
        few = await idle_calls(server, 1)  # 2 seats
        many = await idle_calls(server, 20)  # 40 seats
    for calls in (few, many):
        # What is left is the renewals, give or take the one that ran as counting ended.
        renewals = calls.get("evalsha", 0)
        assert 2 * RENEWALS <= renewals <= 2 * RENEWALS + 2, calls
        assert calls == {name: per * renewals for name, per in RENEWAL.items()}, calls


@pytest.mark.slow
@async_test
async def test_a_seat_whose_session_is_open_here_costs_nothing_more_when_it_calls() -> None:
    """Its moves are calls with its token: the session's holder already keeps it online."""
    with running_redis() as server:
        calls = await idle_calls(server, 5, calling=True)
    renewals = calls.get("evalsha", 0)
    assert calls == {name: per * renewals for name, per in RENEWAL.items()}, calls


@pytest.mark.slow
@async_test
async def test_a_calls_hold_ending_beside_a_session_costs_no_read() -> None:
    """A seat that called before its session opened (a player joining, then playing):
    when the call's hold ends, its session's still keeps the seat online, so no watch
    reads the game's holders again."""
    with running_redis() as server:
        calls = await idle_calls(server, 5, called_first=True)
    renewals = calls.get("evalsha", 0)
    assert calls == {name: per * renewals for name, per in RENEWAL.items()}, calls
