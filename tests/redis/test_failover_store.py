"""The Redis store itself through a Redis Cluster failover (3 masters, a replica
each): writes that wait for replicas follow the new topology, and the listing index
does not turn one shard's outage into a cluster-wide one."""

from __future__ import annotations

import asyncio
import itertools
import signal
import time
import uuid
from collections.abc import Iterator

import pytest

from service.store.base import AppendRequest, StoreUnavailable
from service.store.redis import RedisStore
from tests.support.aio import async_test
from tests.support.redis import RedisClusterNodes, running_cluster
from tests.support.stores import create_stored_game

pytestmark = [pytest.mark.slow, pytest.mark.alone]


@pytest.fixture
def cluster() -> Iterator[RedisClusterNodes]:
    with running_cluster(masters=3, replicas=1, node_timeout_ms=1000) as nodes:
        yield nodes


def game_on(cluster: RedisClusterNodes, prefix: str, wanted: set[int] | None = None, unwanted: int = 0) -> str:
    """A new game id whose keys live on a master in `wanted` (or not on `unwanted`)."""
    for n in itertools.count():
        game_id = f"g{n}-{uuid.uuid4().hex[:6]}"
        port = cluster.master_of(f"{prefix}:{{{game_id}}}:meta").port
        if (wanted is None or port in wanted) and port != unwanted:
            return game_id
    raise AssertionError("unreachable")


@async_test
async def test_writes_waiting_for_replicas_follow_a_failover_at_once(cluster: RedisClusterNodes) -> None:
    store = RedisStore.from_url(cluster.url, wait_replicas=1, wait_timeout=0.5, prefix="ludo")
    try:
        game_id = game_on(cluster, "ludo")
        await create_stored_game(store, game_id)
        await store.append(AppendRequest(game_id, 1, [b"e2"], "c1", b"f", "active", b"s", 2000))
        doomed = cluster.master_of(f"ludo:{{{game_id}}}:meta")
        replica = cluster.replica_of(doomed)
        await asyncio.to_thread(doomed.stop, signal.SIGKILL)
        await asyncio.to_thread(cluster.wait_promoted, replica)
        await asyncio.to_thread(doomed.start)  # back, as the replica of the promoted node
        await asyncio.to_thread(cluster.wait_replicating, doomed)
        ready = time.monotonic()
        while True:
            try:
                await store.append(AppendRequest(game_id, 2, [b"e3"], "c2", b"f", "active", b"s", 3000))
                break
            except StoreUnavailable:
                assert time.monotonic() - ready < 10, "the writes never reached the promoted master"
                await asyncio.sleep(0.05)
        followed = time.monotonic() - ready
        assert followed < 1.0, followed
        assert [e.version for e in await store.read(game_id, 1)] == [1, 2, 3]
        print(f"\nWAIT 1: the first write after the failover went through {followed:.2f} s after the shard was ready")
    finally:
        await store.close()


@async_test
async def test_an_outage_of_the_index_shard_stops_no_game_elsewhere(cluster: RedisClusterNodes) -> None:
    store = RedisStore.from_url(
        cluster.url, wait_replicas=1, wait_timeout=0.5, prefix="ludo", reconcile_grace=0, reconcile_interval=0.2
    )
    try:
        index_master = cluster.master_of(store.keys.filed)
        ending = game_on(cluster, "ludo", unwanted=index_master.port)
        await create_stored_game(store, ending)
        await asyncio.to_thread(index_master.stop, signal.SIGKILL)
        # The index's shard is down (then promoted without a replica: it cannot confirm
        # writes): games on the other shards are created and finished all the same.
        created = [game_on(cluster, "ludo", unwanted=index_master.port) for _ in range(3)]
        for game_id in created:
            await create_stored_game(store, game_id)
        await store.append(AppendRequest(ending, 1, [b"last"], "end", b"f", "finished", b"s", 2000))
        with pytest.raises(StoreUnavailable):
            await store.list_games("", "", 10, "")
        await asyncio.to_thread(cluster.wait_promoted, cluster.replica_of(index_master))
        await asyncio.to_thread(index_master.start)
        await asyncio.to_thread(cluster.wait_replicating, index_master)
        # Once the index can be written again, it catches up by itself.
        deadline = time.monotonic() + 10
        while True:
            try:
                finished = await store.list_games("", "finished", 10, "")
                listed = await store.list_games("", "", 10, "")
                if {g.game_id for g in listed.games} == {ending, *created} and [g.game_id for g in finished.games] == [
                    ending
                ]:
                    break
            except StoreUnavailable:
                pass
            assert time.monotonic() < deadline, "the index never caught up"
            await asyncio.sleep(0.1)
    finally:
        await store.close()
