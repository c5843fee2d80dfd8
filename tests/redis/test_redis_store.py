"""What only the Redis store has to prove, beyond the shared contract suite: bounded
subscriber queues, one blocking read per process, scripts reloaded, a listing index
that converges when a writer dies half way or the index cannot be written, outages
survived, WAIT for replicas."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import signal
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.model.errors import Code, ServiceError
from service.app.observe.instrumented import instrumented
from service.app.observe.metrics import Metrics
from service.store import open_store
from service.store.base import (
    AppendRequest,
    AppendResult,
    GameNotFound,
    Keep,
    NewGame,
    StoredSnapshot,
    StoreUnavailable,
    SubscriberTooSlow,
    VersionConflict,
)
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from service.store.redis_index import Labels
from service.store.redis_lua import APPEND, CREATE, EXPIRY_SLACK_MS
from service.store.redis_moves import SWEEP_SLICES, MoveSubscriptions
from tests.support.aio import async_test, first_versions
from tests.support.redis import RedisServer, in_sync, running_redis
from tests.support.stores import append, create_stored_game, redis_store, redis_stores
from tests.support.waiting import wait_until


async def redis_clients(server: RedisServer) -> list[str]:
    """CLIENT LIST: one line per connection, with the command it runs (cmd=...)."""
    listing = await asyncio.to_thread(server.command, "CLIENT", "LIST")
    return (listing.decode() if isinstance(listing, bytes) else str(listing)).splitlines()


# --- selection -----------------------------------------------------------------------


def test_the_store_is_chosen_by_its_url() -> None:
    assert isinstance(open_store("memory"), MemoryStore)
    single = open_store("redis://127.0.0.1:1/0", redis_wait_replicas=2, redis_wait_timeout=0.5)
    assert isinstance(single, RedisStore) and not single.redis.is_cluster
    assert single.redis.wait_replicas == 2 and single.redis.wait_timeout_ms == 500
    cluster = open_store("redis+cluster://127.0.0.1:1")
    assert isinstance(cluster, RedisStore) and cluster.redis.is_cluster
    with pytest.raises(ValueError, match="redis://host:port/db"):
        open_store("postgres://somewhere")


# --- live subscriptions --------------------------------------------------------------


@async_test
async def test_a_subscriber_that_falls_behind_is_ended_not_buffered(redis_server: RedisServer) -> None:
    async with redis_store(redis_server.url, subscriber_queue=8) as store:
        await create_stored_game(store)
        slow = aiter(store.subscribe("g1", 1))
        assert (await anext(slow)).version == 1  # now followed live, with a queue of 8
        await append(store, "g1", 1, *(b"x" for _ in range(20)))  # 20 events arrive in one read
        with pytest.raises(SubscriberTooSlow):
            async for _ in slow:
                pass
        # It can resume from where it stood, and a reader that keeps up gets everything.
        assert await first_versions(store.subscribe("g1", 2), 20) == list(range(2, 22))


async def commands_called(server: RedisServer, name: str) -> int:
    """How many times the server ran command `name` (INFO commandstats)."""
    stats = await asyncio.to_thread(server.command, "INFO", "commandstats")
    assert isinstance(stats, dict), stats  # redis-py parses INFO: {"cmdstat_<name>": {"calls": ...}}
    return int(stats.get(f"cmdstat_{name}", {}).get("calls", 0))


@async_test
async def test_a_move_costs_one_message_and_one_read_whatever_the_number_of_games_followed(
    redis_server: RedisServer,
) -> None:
    """The moves come from another process (another store on the same Redis)."""
    async with redis_stores(redis_server.url, 2) as (store, writer):
        games = [f"g{i}" for i in range(10)]
        for game_id in games:
            await create_stored_game(writer, game_id)
        readers = [asyncio.create_task(first_versions(store.subscribe(g, 1), 3)) for g in games for _ in range(3)]
        for game_id in games:
            await append(writer, game_id, 1, b"a")
            await append(writer, game_id, 2, b"b")
        assert [await reader for reader in readers] == [[1, 2, 3]] * 30
        followers = [asyncio.create_task(first_versions(store.subscribe(g, 4), 2)) for g in games for _ in range(3)]
        # 30 live subscribers of 10 games: one connection subscribed to the 10 channels.
        deadline = asyncio.get_running_loop().time() + 10
        while sum("ssub=10 " in c for c in await redis_clients(redis_server)) != 1:
            assert asyncio.get_running_loop().time() < deadline, await redis_clients(redis_server)
            await asyncio.sleep(0.01)
        before = await commands_called(redis_server, "xrange")
        await append(writer, "g3", 3, b"c")
        await append(writer, "g3", 4, b"d")
        for game_id in games:
            if game_id != "g3":
                await append(writer, game_id, 3, b"c")
                await append(writer, game_id, 4, b"d")
        assert [await follower for follower in followers] == [[4, 5]] * 30
        # Each move was read once, from its own game: nothing else was looked at.
        assert 0 < (await commands_called(redis_server, "xrange")) - before <= 20


@async_test
async def test_the_process_that_made_a_move_reads_nothing_back_to_its_own_followers(
    redis_server: RedisServer,
) -> None:
    async with redis_store(redis_server.url) as store:
        games = [f"g{i}" for i in range(10)]
        for game_id in games:
            await create_stored_game(store, game_id)
        followers = [store.subscribe(g, 1) for g in games for _ in range(3)]
        assert [(await anext(follower)).version for follower in followers] == [1] * 30  # read from the store
        before = [await commands_called(redis_server, name) for name in ("xrange", "evalsha")]
        for version in range(1, 5):
            for game_id in games:
                await append(store, game_id, version, b"e%d" % version)
        for follower in followers:
            assert [(await anext(follower)).version for _ in range(4)] == [2, 3, 4, 5]
        after = [await commands_called(redis_server, name) for name in ("xrange", "evalsha")]
        # The 40 appends' scripts, and no read: each follower got each version once.
        assert after[0] - before[0] == 0 and after[1] - before[1] == 40
        for follower in followers:
            await follower.aclose()  # type: ignore[attr-defined]  # (an async generator's)


async def close_while_following(store: RedisStore, writer: RedisStore) -> None:
    """Follows a game on `store`, hearing `writer`'s move on its channel, then closes the
    store while it follows (as at a server's stop): every task it had has ended then (one
    left pending is "destroyed but pending" when the server's loop closes)."""
    before = asyncio.all_tasks()
    try:
        await create_stored_game(store)
        follower = aiter(store.subscribe("g1", 1))
        assert (await anext(follower)).version == 1
        await append(writer, "g1", 1, b"e2")  # another process's move: heard on the channel
        assert (await anext(follower)).version == 2
    finally:
        await writer.close()
        async with asyncio.timeout(30):  # a subscription waiting for a lost cancel: for ever
            await store.close()
    assert [task for task in asyncio.all_tasks() - before if not task.done()] == []
    await follower.aclose()  # type: ignore[attr-defined]


@async_test
async def test_a_store_closed_while_it_follows_games_leaves_no_task_behind(redis_server: RedisServer) -> None:
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    await close_while_following(*(RedisStore.from_url(redis_server.url, prefix=prefix) for _ in range(2)))


@async_test
async def test_a_subscription_whose_send_lost_its_cancel_still_ends_at_close(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python 3.11's asyncio.wait_for, which redis-py's send runs in, returns the send's
    # result when a cancel comes just as the send ends: the cancel is lost. Here every
    # SSUBSCRIBE's send loses it, so that the subscription must end without it.
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    store, writer = (RedisStore.from_url(redis_server.url, prefix=prefix) for _ in range(2))
    subscriptions = store._live._moves
    made = subscriptions._connection

    def losing_cancels(shard: Any) -> Any:
        connection = made(shard)
        send = connection.send_command

        async def send_command(*args: Any, **kwargs: Any) -> None:
            await send(*args, **kwargs)
            if args[0] == "SSUBSCRIBE":
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.Event().wait()  # held until cancelled, and the cancel lost

        connection.send_command = send_command  # type: ignore[method-assign]
        return connection

    monkeypatch.setattr(subscriptions, "_connection", losing_cancels)
    await close_while_following(store, writer)


@async_test
async def test_the_backstop_hands_over_every_followed_game_once_a_sweep_a_slice_at_a_time(
    redis_server: RedisServer,
) -> None:
    async with redis_store(redis_server.url) as store:
        handed: list[frozenset[str]] = []
        # A game heard from now on (its subscription acknowledged) is handed alone; a slice holds several.
        moves = MoveSubscriptions(
            store.redis,
            store.keys,
            lambda game_id, said: None,
            lambda games: handed.append(frozenset(games)),
            sweep_seconds=0.6,
        )
        games = {f"g{i}" for i in range(100)}
        try:
            for game_id in sorted(games):
                moves.follow(game_id)
            async with asyncio.timeout(30):
                while len(slices := [g for g in handed if len(g) > 1]) < 3 * SWEEP_SLICES:
                    await asyncio.sleep(0.05)
        finally:
            await moves.close()
    sweeps = [slices[at : at + SWEEP_SLICES] for at in range(0, 3 * SWEEP_SLICES, SWEEP_SLICES)]
    for sweep in sweeps:
        assert sorted(g for games_in in sweep for g in games_in) == sorted(games)  # each game once
        assert {len(games_in) for games_in in sweep} <= {8, 9}  # 100 games in 12 even slices
    assert sweeps[0] == sweeps[1] == sweeps[2]  # the same slices in turn: each game once every sweep_seconds


@async_test
async def test_an_event_whose_message_was_lost_comes_with_the_sweep_while_games_come_and_go(
    redis_server: RedisServer,
) -> None:
    async with redis_stores(redis_server.url, 2, sweep_seconds=1.2) as (store, writer):
        await create_stored_game(writer)
        follower = aiter(store.subscribe("g1", 1))
        assert (await anext(follower)).version == 1
        await append(writer, "g1", 1, b"e2")  # heard on its channel: the subscription is in place
        assert (await anext(follower)).version == 2
        others: list[Any] = []

        async def churn() -> None:  # a game followed every 20 ms: placing never puts the sweep off
            for i in itertools.count():
                await create_stored_game(writer, f"c{i}")
                others.append(aiter(store.subscribe(f"c{i}", 1)))
                await anext(others[-1])
                await asyncio.sleep(0.02)

        churning = asyncio.create_task(churn())
        try:
            async with asyncio.timeout(15):
                while len(others) < 3:
                    await asyncio.sleep(0.01)
                # Version 3 written as the script does, but its message lost: the channel never says it.
                await asyncio.to_thread(redis_server.command, "XADD", writer.keys.events("g1"), "3-0", "d", "e3")
                await asyncio.to_thread(redis_server.command, "HSET", writer.keys.meta("g1"), "version", 3)
                event = await anext(follower)
            assert not churning.done()  # games were still being followed when it came
        finally:
            churning.cancel()
            await asyncio.wait({churning})
            for other in [follower, *others]:
                await other.aclose()
        assert (event.version, event.data) == (3, b"e3")


@async_test
async def test_subscribers_coming_and_going_during_appends_see_each_version_once(redis_server: RedisServer) -> None:
    """Subscribers join while the reader lags behind the appends, and leave while reads
    are in flight: every one of them still sees one exact run of versions."""
    async with redis_store(redis_server.url) as store:
        await create_stored_game(store)
        rng = random.Random(3)
        total = 300

        async def writer() -> None:
            for version in range(1, total):
                await append(store, "g1", version, b"x")
                await asyncio.sleep(0)

        async def subscriber(start: int, count: int) -> None:
            events = aiter(store.subscribe("g1", start))
            seen = [(await anext(events)).version for _ in range(count)]
            await events.aclose()  # type: ignore[attr-defined]
            assert seen == list(range(start, start + count))

        writing = asyncio.create_task(writer())
        readers = []
        while (version := (await store.info("g1")).version) + 8 <= total:  # each one's events will come
            readers.append(asyncio.create_task(subscriber(rng.randint(max(1, version - 5), version + 3), 5)))
            for _ in range(rng.randint(0, 6)):
                await asyncio.sleep(0)
        await writing
        await asyncio.gather(*(asyncio.wait_for(reader, 30) for reader in readers))
        assert len(readers) > 50


@async_test
async def test_scripts_are_loaded_again_when_redis_forgot_them(redis_server: RedisServer) -> None:
    async with redis_store(redis_server.url) as store:
        await create_stored_game(store)
        await asyncio.to_thread(redis_server.command, "SCRIPT", "FLUSH")
        assert await append(store, "g1", 1, b"after flush") == AppendResult(2, 2)
        assert await store.find_command("g1", "c1", b"f") == AppendResult(2, 2, replayed=True)


@async_test
async def test_writers_on_many_connections_race_and_exactly_one_wins_each_version(redis_server: RedisServer) -> None:
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    stores = [RedisStore.from_url(redis_server.url, prefix=prefix) for _ in range(4)]
    try:
        await create_stored_game(stores[0])
        for version in range(1, 11):
            outcomes = await asyncio.gather(
                *(
                    store.append(
                        AppendRequest("g1", version, [b"w%d" % writer], f"w{version}-{writer}", b"f", "active", b"", 0)
                    )
                    for writer, store in enumerate(stores * 2)
                ),
                return_exceptions=True,
            )
            won = [o for o in outcomes if isinstance(o, AppendResult)]
            assert won == [AppendResult(version + 1, version + 1)]
            assert sum(isinstance(o, VersionConflict) for o in outcomes) == len(outcomes) - 1
        history = await stores[1].read("g1", 1)
        assert [e.version for e in history] == list(range(1, 12))
    finally:
        for store in stores:
            await store.close()


# --- the listing index ---------------------------------------------------------------


@pytest.mark.parametrize("backend", ["redis_server", "redis_cluster"])
@async_test
async def test_the_index_converges_when_a_writer_dies_before_filing_a_game(
    request: pytest.FixtureRequest, backend: str
) -> None:
    url = request.getfixturevalue(backend).url
    async with redis_store(url, reconcile_grace=0, reconcile_interval=0) as store:
        keys, redis = store.keys, store.redis
        # A creation written (of a game not listed for everyone), its writer dead before it filed the game:
        filing = store.index.filing_key("orphan")
        await redis.run(
            CREATE,
            [keys.meta("orphan"), keys.events("orphan"), filing],
            ["mooki", "active", b"r", b"s", 1, "0", "orphan", "0", 0, 0, b"e"],
        )
        assert (await store.list_games("", "", 10, "")).games == []
        # A status change written, its writer dead before it moved the game in the index:
        await create_stored_game(store, "ending")
        args = [1, "end", b"f".hex(), "finished", b"s", 2, "0", "ending", "", "", 0, 0, b"last"]
        game_keys = [keys.meta("ending"), keys.events("ending"), keys.commands("ending")]
        filing_and_more = [store.index.filing_key("ending"), keys.snapshots("ending"), keys.moves("ending")]
        await redis.run(APPEND, [*game_keys, *filing_and_more], args)
        active = await store.list_games("", "active", 10, "")
        assert active.games == []  # the index still says active: the game's own status wins
        # The reconciler files both, from the filing sets the writes left behind.
        assert await store.index.sweep() == 2
        assert [g.game_id for g in (await store.list_games("", "", 10, "")).games] == ["orphan", "ending"]
        assert [g.game_id for g in (await store.list_games("mooki", "finished", 10, "")).games] == ["ending"]
        assert [g.game_id for g in (await store.list_games("", "active", 10, "")).games] == ["orphan"]
        # Each as it was created: listed for everyone or not, under its latest status.
        assert [g.game_id for g in (await store.list_games("", "", 10, "", listed_only=True)).games] == ["ending"]
        assert [g.game_id for g in (await store.list_games("", "finished", 10, "", listed_only=True)).games] == [
            "ending"
        ]
        assert (await store.list_games("", "active", 10, "", listed_only=True)).games == []
        assert await store.index.sweep() == 0


@async_test
async def test_a_game_the_index_could_not_take_is_filed_once_it_can(own_redis: RedisServer) -> None:
    async with redis_store(own_redis.url, reconcile_grace=60, reconcile_interval=0) as store:
        await create_stored_game(store, "early")
        # The index refuses writes (as a shard that is down would): the game is stored all the same.
        own_redis.command("RENAME", store.keys.sequence, "elsewhere")
        own_redis.command("SET", store.keys.sequence, "not a number")
        await create_stored_game(store, "late")
        assert (await store.info("late")).version == 1
        assert [g.game_id for g in (await store.list_games("", "", 10, "")).games] == ["early"]
        own_redis.command("RENAME", "elsewhere", store.keys.sequence)
        assert await store.index.settle_due() == 1  # remembered by this process: not left to the sweep's grace
        assert [g.game_id for g in (await store.list_games("", "", 10, "")).games] == ["late", "early"]


@async_test
async def test_filings_arriving_out_of_order_keep_the_latest_status(redis_server: RedisServer) -> None:
    async with redis_store(redis_server.url, reconcile_interval=0) as store:
        await create_stored_game(store, "g1")
        await append(store, "g1", 1, b"last", status="finished")
        await store.index.sync("g1", Labels("mooki", "active", 1, listed=True))  # a late filing of the creation
        assert [g.game_id for g in (await store.list_games("", "finished", 10, "")).games] == ["g1"]
        assert [g.game_id for g in (await store.list_games("", "finished", 10, "", listed_only=True)).games] == ["g1"]
        await store.index.sync("g1", None)  # the game is gone: it leaves the listing
        assert (await store.list_games("", "", 10, "")).games == []
        assert (await store.index.page("", "", 10, "", listed_only=True))[0] == []  # the listed sets too


# --- Redis going away ----------------------------------------------------------------


@async_test
async def test_a_store_opened_while_redis_is_down_is_unavailable_until_redis_is_up(own_redis: RedisServer) -> None:
    own_redis.stop()
    async with redis_store(own_redis.url) as store:
        with pytest.raises(StoreUnavailable):
            await store.ping()
        with pytest.raises(StoreUnavailable):
            await create_stored_game(store)
        own_redis.start()
        await store.ping()
        await create_stored_game(store)
        assert (await store.info("g1")).version == 1


@pytest.mark.slow
@async_test
async def test_subscribers_and_writers_carry_on_across_a_redis_crash(own_redis: RedisServer) -> None:
    async with redis_store(own_redis.url) as store:
        await create_stored_game(store)
        live = asyncio.Event()
        seen: list[int] = []

        async def follow() -> list[int]:
            async for event in store.subscribe("g1", 1):
                seen.append(event.version)
                if event.version == 5:
                    live.set()
                if len(seen) == 10:
                    break
            return seen

        follower = asyncio.create_task(follow())
        for version in range(1, 5):
            await append(store, "g1", version, b"before")
        # Followed live before the crash (its first read of the store is done: a read
        # during the outage would end it UNAVAILABLE, as any read then).
        await asyncio.wait_for(live.wait(), 30)
        await asyncio.to_thread(own_redis.stop, signal.SIGKILL)  # acknowledged writes are in the AOF
        with pytest.raises(StoreUnavailable):
            await append(store, "g1", 5, b"during")
        with pytest.raises(StoreUnavailable):
            await store.read("g1", 1)
        await asyncio.to_thread(own_redis.start)
        for version in range(5, 10):
            await append(store, "g1", version, b"after")
        assert await asyncio.wait_for(follower, 30) == list(range(1, 11))
        assert [e.version for e in await store.read("g1", 1)] == list(range(1, 11))


# --- WAIT for replicas ---------------------------------------------------------------


@asynccontextmanager
async def replicated(primary: RedisServer) -> AsyncIterator[RedisServer]:
    """A replica of `primary`, in sync."""
    primary.command("CONFIG", "SET", "repl-diskless-sync-delay", "0")  # sync a replica at once
    with running_redis(["--replicaof", "127.0.0.1", str(primary.port)]) as replica:
        await asyncio.to_thread(wait_until, lambda: in_sync(replica), 30, "the replica to sync")
        yield replica


@pytest.mark.slow
@async_test
async def test_a_move_counts_only_once_the_replicas_have_it(own_redis: RedisServer) -> None:
    async with replicated(own_redis) as replica:
        # Appends meant to succeed may wait long for the replica (a loaded machine is
        # slow); those meant to fail give up soon. Both stores share the key prefix.
        prefix = f"test-{uuid.uuid4().hex[:12]}"
        async with (
            redis_store(own_redis.url, wait_replicas=1, wait_timeout=30, prefix=prefix) as store,
            redis_store(own_redis.url, wait_replicas=1, wait_timeout=0.3, prefix=prefix) as impatient,
        ):
            await create_stored_game(store)
            assert await append(store, "g1", 1, b"two") == AppendResult(2, 2)
            follower = asyncio.create_task(first_versions(store.subscribe("g1", 1), 3))
            await asyncio.to_thread(replica.stop, signal.SIGKILL)
            with pytest.raises(StoreUnavailable, match="replicas"):
                await append(impatient, "g1", 2, b"three")
            # On the primary, not confirmed: nobody is shown it.
            assert (await store.info("g1")).version == 2
            assert [e.version for e in await store.read("g1", 1)] == [1, 2]
            with pytest.raises(StoreUnavailable, match="replicas"):  # asking for it past what is shown: unknown
                await impatient.read("g1", 3)
            with pytest.raises(StoreUnavailable, match="replicas"):  # a retry is not acknowledged either
                await append(impatient, "g1", 2, b"three")
            assert not follower.done()
            await asyncio.to_thread(replica.start)
            await asyncio.to_thread(wait_until, lambda: in_sync(replica), 30, "the replica to sync again")
            assert await append(store, "g1", 2, b"three") == AppendResult(3, 3, replayed=True)
            assert (await store.info("g1")).version == 3
            assert await asyncio.wait_for(follower, 30) == [1, 2, 3]


# --- health: what readiness reports ----------------------------------------------------


@async_test
async def test_memory_pressure_fails_readiness_and_is_a_gauge(own_redis: RedisServer) -> None:
    metrics = Metrics()
    async with redis_store(own_redis.url) as store:
        app = GameApp(
            instrumented(store, metrics),
            TokenAuthority(b"0123456789abcdef-secret-0123456789abcdef"),
            metrics=metrics,
        )
        await app.ready()
        used = int(own_redis.command("INFO", "memory")["used_memory"])  # type: ignore[index]
        own_redis.command("CONFIG", "SET", "maxmemory", int(used / 0.95))  # about 95% in use
        await app.check_store()  # (a server does every second; readiness answers from the last look)
        with pytest.raises(ServiceError) as unready:
            await app.ready()  # its only shard is nearly full: nowhere left to write
        assert unready.value.code is Code.UNAVAILABLE and "memory" in unready.value.message
        ratio = metrics.registry.get_sample_value("ludotheque_store_memory_used_ratio", {"shard": "redis"})
        assert ratio is not None and 0.9 < ratio < 1.0
        assert metrics.registry.get_sample_value("ludotheque_store_shard_writable", {"shard": "redis"}) == 1
        own_redis.command("CONFIG", "SET", "maxmemory", 0)
        await app.check_store()
        await app.ready()


@async_test
async def test_a_shard_that_cannot_take_writes_is_not_ready(own_redis: RedisServer) -> None:
    async with redis_store(own_redis.url) as store:
        assert [shard.writable for shard in (await store.health()).shards] == [True]
        own_redis.command("CONFIG", "SET", "min-replicas-to-write", 1)  # refuses writes without a replica
        (shard,) = (await store.health()).shards
        assert not shard.writable and "NOREPLICAS" in shard.problem
        own_redis.command("CONFIG", "SET", "min-replicas-to-write", 0)
        assert [shard.writable for shard in (await store.health()).shards] == [True]


# --- retention -------------------------------------------------------------------------


@async_test
async def test_every_key_of_a_game_expires_when_its_keep_says(own_redis: RedisServer) -> None:
    # Writes that wait for a replica (which once gave a game a fifth key: no longer).
    async with replicated(own_redis), redis_store(own_redis.url, wait_replicas=1, wait_timeout=30) as store:
        now = int(time.time() * 1000)
        every_key = store.keys.of_game("g1")  # meta, events, commands, snapshots
        await store.create(NewGame("g1", "mooki", "active", b"r", b"s", [b"e1"], now, Keep(now + 1000, now + 50_000)))
        await store.put_snapshots("g1", [StoredSnapshot(1, b"snap")])
        await store.append(
            AppendRequest("g1", 1, [b"e2"], "c", b"f", "active", b"s", now, Keep(now + 2000, now + 60_000))
        )
        assert [own_redis.command("EXISTS", key) for key in every_key] == [1] * 4
        expiries = [await store.redis.call("PEXPIRETIME", key) for key in every_key]
        assert expiries == [now + 60_000 + EXPIRY_SLACK_MS] * 4  # a little later than asked, never earlier
        await store.append(AppendRequest("g1", 2, [b"e3"], "d", b"f", "finished", b"s", now, Keep(0, 0)))
        assert [await store.redis.call("PTTL", key) for key in every_key] == [-1] * 4  # kept forever


@async_test
async def test_a_deleted_game_of_a_store_that_waits_for_replicas_ends_its_followers(own_redis: RedisServer) -> None:
    # Its followers hear the deletion on the game's channel, as they hear its confirmations.
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    async with (
        replicated(own_redis),
        redis_store(own_redis.url, prefix, wait_replicas=1, wait_timeout=30) as deleting,
        redis_store(own_redis.url, prefix, wait_replicas=1, wait_timeout=30) as following,
    ):
        await create_stored_game(deleting, "g1", events=2)
        follower = following.subscribe("g1", 1)
        assert [(await anext(follower)).version for _ in range(2)] == [1, 2]
        waiting = asyncio.ensure_future(anext(follower))
        await deleting.delete("g1")
        with pytest.raises(GameNotFound):
            await asyncio.wait_for(waiting, 10)
        await create_stored_game(deleting, "g1")  # the id may be used again at once
        assert [e.version for e in await deleting.read("g1", 1)] == [1]


@async_test
async def test_a_game_redis_dropped_by_itself_is_still_due_and_then_unlisted(redis_server: RedisServer) -> None:
    async with redis_store(redis_server.url) as store:
        now = int(time.time() * 1000)
        await store.create(NewGame("gone", "mooki", "active", b"r", b"s", [b"e1"], now, Keep(now + 10, now + 200)))
        await store.create(NewGame("kept", "mooki", "active", b"r", b"s", [b"e1"], now))
        meta = store.keys.meta("gone")

        def dropped() -> bool:
            return redis_server.command("EXISTS", meta) == 0

        await asyncio.to_thread(wait_until, dropped, 10, "Redis to expire the game")
        assert [g.game_id for g in (await store.list_games("", "", 10, "")).games] == ["kept"]
        assert await store.due_games(int(time.time() * 1000), 10) == ["gone"]
        await store.forget("gone")
        assert await store.due_games(int(time.time() * 1000), 10) == []
        for listed_only in (False, True):  # out of both families of sets (redis_index.py)
            listed = await store.redis.call("ZRANGE", store.keys.index_set("", "", listed_only=listed_only), 0, -1)
            assert listed == [b"kept"]


@async_test
async def test_a_game_deleted_by_one_process_ends_its_followers_on_another(redis_server: RedisServer) -> None:
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    async with redis_store(redis_server.url, prefix) as deleting, redis_store(redis_server.url, prefix) as following:
        await create_stored_game(deleting, "g1", events=2)
        follower = following.subscribe("g1", 1)
        assert [(await anext(follower)).version for _ in range(2)] == [1, 2]
        waiting = asyncio.ensure_future(anext(follower))
        await deleting.delete("g1")
        with pytest.raises(GameNotFound):
            await asyncio.wait_for(waiting, 10)


@async_test
async def test_a_mark_holds_across_processes_sharing_redis(redis_server: RedisServer) -> None:
    # Two stores on one Redis with one prefix stand for two server processes: one
    # ticket, spent on both at once, is spent exactly once.
    async with redis_store(redis_server.url) as first, redis_store(redis_server.url, first.keys.prefix) as second:
        outcomes = await asyncio.gather(*(store.mark_once("ticket", 60_000) for store in (first, second) * 10))
        assert outcomes.count(True) == 1
        assert not await second.mark_once("ticket", 60_000)
        assert int(await asyncio.to_thread(redis_server.command, "PTTL", f"{first.keys.prefix}:mark:ticket")) > 0  # type: ignore[call-overload]


@async_test
async def test_a_mark_waits_for_the_replicas_when_writes_do(own_redis: RedisServer) -> None:
    # A spent stream ticket must not come back with a failover: its mark is a write that waits.
    # The confirmed mark waits as long as a busy machine needs; the refused one a short time.
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    async with (
        replicated(own_redis) as replica,
        redis_store(own_redis.url, prefix, wait_replicas=1, wait_timeout=30) as patient,
        redis_store(own_redis.url, prefix, wait_replicas=1, wait_timeout=0.3) as hasty,
    ):
        assert await patient.mark_once("ticket", 60_000)
        assert replica.command("EXISTS", patient.keys.mark("ticket")) == 1  # WAIT returned: the replica has it
        await asyncio.to_thread(replica.stop, signal.SIGKILL)
        with pytest.raises(StoreUnavailable, match="replicas"):
            await hasty.mark_once("another", 60_000)
