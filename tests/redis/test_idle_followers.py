"""Followers that never read (issue 42, item 3): before, 200 server-sent event streams of
a long game opened at once from 8 addresses, never read, made as many reads of its past
at once, took every connection of the Redis store ("pool_exhausted: all 64 connections
busy"), and the honest players' moves failed. Now a follower's reads of the past take
turns (`redis_follower_reads` at once) and each is over before its events are handed on:
whatever their number, followers hold at most so many connections, and the moves find
theirs. Counted in connections in use, not in time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app.access.origins import Origin, calling_from
from service.store.redis_client import SCRIPT_CONNECTIONS
from service.store.redis_live import FOLLOWER_READS
from tests.support.aio import async_test
from tests.support.apps import ADMIN, DRAW_LEFT, bots_request, create_game, new_app, submit
from tests.support.redis import RedisServer
from tests.support.stores import redis_stores

STREAMS = 200
ADDRESSES = 8


@async_test
async def test_streams_never_read_hold_no_more_connections_than_their_turns(redis_server: RedisServer) -> None:
    async with redis_stores(redis_server.url) as (store,):
        app = new_app(store, prefix=None)
        long = await app.games.create_game(bots_request("pirates", 3), ADMIN)  # thousands of events
        assert long.game.version > 1000
        honest = await create_game(app)
        request = api.StreamEventsRequest(game_id=long.game_id, from_version=1)
        streams: list[AsyncIterator[game_pb2.Event]] = []
        for index in range(STREAMS):
            with calling_from(Origin(f"192.0.2.{index % ADDRESSES + 1}")):
                streams.append((await app.history.stream_events(request, "")).events)
        store.redis.most_in_use = store.redis.in_use
        # Every stream starts its catch-up at once, and is then never read again.
        firsts = await asyncio.gather(*(anext(stream) for stream in streams))
        assert {first.version for first in firsts} == {1}
        assert store.redis.most_in_use <= FOLLOWER_READS < SCRIPT_CONNECTIONS
        # The honest player's move finds a connection.
        moved = await app.moves.submit(submit(honest.game_id, DRAW_LEFT), honest.seat_tokens[0])
        assert moved.version > honest.game.version
        assert store.redis.most_in_use <= FOLLOWER_READS + 1
        for stream in streams:
            await stream.aclose()  # type: ignore[attr-defined]
