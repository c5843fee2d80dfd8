"""The store is the truth: when the event store no longer holds versions a server had
stored and acknowledged (a Redis failover that promoted a lagging replica; here, as
fast, the game's keys or Redis's whole append-only file put back as they were a few
moves earlier), the server rebuilds the game from the store, records the loss, and
never gives the lost version numbers to other moves. tests/redis/test_failover.py does
the same through a real failover."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import uuid

import pytest
from google.rpc import error_details_pb2
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.contract import Viewer
from service.app import GameApp
from service.app.model.errors import Code, ServiceError
from service.app.views.views import legal_commands
from service.store.base import AppendRequest, AppendResult, StoreUnavailable
from service.store.redis import RedisStore
from tests.support.aio import async_test
from tests.support.apps import ADMIN, create_game, events, new_app, play_first_moves
from tests.support.redis import RedisServer
from tests.support.refusals import detail
from tests.support.stores import redis_stores


def app_on(store: RedisStore, snapshot_interval: int = 100) -> GameApp:
    """A server process on `store`: its game ids are its own, its seeds random."""
    return new_app(store, None, prefix=None, snapshot_interval=snapshot_interval)


def snapshot(server: RedisServer, store: RedisStore, game_id: str) -> dict[str, bytes | None]:
    """Every key of the game as it is now (its events, meta, command ids, snapshots...)."""
    return {name: server.command("DUMP", name) for name in store.keys.of_game(game_id)}  # type: ignore[misc]


def restore(server: RedisServer, saved: dict[str, bytes | None]) -> None:
    """Puts the keys back as they were: the store loses what was written since."""
    for name, dump in saved.items():
        server.command("DEL", name)
        if dump is not None:
            server.command("RESTORE", name, 0, dump)


async def get(app: GameApp, game: api.CreateGameResponse, token: str = "") -> game_pb2.Game:
    return await app.games.get_game(api.GetGameRequest(game_id=game.game_id), token)


def losses(game: game_pb2.Game) -> list[tuple[int, int, bool]]:
    return [(loss.first, loss.last, loss.reused) for loss in game.history_losses]


def metric(app: GameApp, name: str, **labels: str) -> float:
    return app.metrics.registry.get_sample_value(name, labels) or 0.0


@async_test
async def test_a_store_behind_the_cache_is_believed_and_the_lost_versions_are_never_used_again(
    redis_server: RedisServer,
) -> None:
    async with redis_stores(redis_server.url, 2) as (store, elsewhere):
        app, other = app_on(store), app_on(elsewhere)
        game = await create_game(app)
        kept = await play_first_moves(app, game, 3)
        view_then = (await get(app, game)).view
        saved = snapshot(redis_server, store, game.game_id)
        known = await play_first_moves(app, game, 3)
        assert (await get(other, game)).version == known  # another server caches the same versions
        restore(redis_server, saved)

        now = await get(app, game)
        assert now.version == known + 1 and now.view == view_then
        assert losses(now) == [(kept + 1, known, False)]
        history = await events(app, game.game_id)
        assert [e.version for e in history] == list(range(1, known + 2))
        for event in history[kept:]:  # placeholders, then the notice: no move, the same loss
            assert event.HasField("history_loss") and not event.WhichOneof("game") and not event.HasField("command")
            assert (event.history_loss.first, event.history_loss.last) == (kept + 1, known)
        # Described as any event, in the caller's language: each placeholder, then the notice.
        told = (await app.history.list_events(api.ListEventsRequest(game_id=game.game_id, locale="fr"), "")).events
        assert {event.description.key for event in told[kept:known]} == {"history.lost_version"}
        notice = told[known].description
        assert notice.key == "history.loss" and notice.args["first"].value == str(kept + 1)
        assert f"{known - kept} coups ({kept + 1} à {known}) ont été perdus" in notice.text
        replayed = await app.history.replay(api.ReplayGameRequest(game_id=game.game_id, at_version=known), "")
        assert replayed.view == view_then  # a lost version shows the state before the loss

        # A client that names a lost version is told which were lost.
        stale = api.SubmitCommandRequest(
            game_id=game.game_id, command=(await get(app, game, game.seat_tokens[now.to_act[0]])).legal_commands[0]
        )
        stale.expected_version = known
        with pytest.raises(ServiceError) as refused:
            await app.moves.submit(stale, game.seat_tokens[now.to_act[0]])
        assert refused.value.code is Code.FAILED_PRECONDITION
        info = detail(refused.value, error_details_pb2.ErrorInfo)
        assert info.reason == "VERSIONS_LOST" and info.metadata["message_key"] == "error.versions_lost"
        assert (info.metadata["first_lost"], info.metadata["last_lost"]) == (str(kept + 1), str(known))
        stale.expected_version = known + 1
        assert (await app.moves.submit(stale, game.seat_tokens[now.to_act[0]])).version > known + 1
        assert metric(app, "ludotheque_store_behind_total", kind="mooki") == 1
        assert metric(app, "ludotheque_history_losses_total", kind="mooki", reused="false") == 1

        # A stream resumed past what the store has is told what was lost.
        with pytest.raises(ServiceError) as resumed:
            past = await app.history.stream_events(
                api.StreamEventsRequest(game_id=game.game_id, from_version=known + 9), ""
            )
            await anext(past.events)
        assert detail(resumed.value, error_details_pb2.ErrorInfo).reason == "VERSIONS_LOST"
        # The game's log, lost versions included, still verifies and imports.
        log = (await app.logs.export_game(api.ExportGameRequest(game_id=game.game_id), ADMIN)).log
        imported = await app.logs.import_game(api.ImportGameRequest(log=log), ADMIN)
        assert losses(imported.game) == losses(now) and imported.game.version == len(log.events)

        # The other server had cached the lost versions too: it rebuilds, and finds the
        # loss recorded already.
        seen_there = await get(other, game)
        assert seen_there.version == (await get(app, game)).version and losses(seen_there) == losses(now)
        assert metric(other, "ludotheque_history_losses_total", kind="mooki", reused="false") == 0
        assert len([e for e in await events(app, game.game_id) if e.version > e.history_loss.last > 0]) == 1


@async_test
async def test_a_fold_from_a_snapshot_passes_over_the_lost_versions(redis_server: RedisServer) -> None:
    """Snapshots every 2 events: a game that lost versions (placeholders and a notice in
    its history) and went on is read from a snapshot taken before the loss, by a cold
    server and at every version, the same as by one that folds every event."""
    async with redis_stores(redis_server.url, 3) as (store, cold_store, reference_store):
        app = app_on(store, snapshot_interval=2)
        game = await create_game(app)
        kept = await play_first_moves(app, game, 3)
        await app.drain()  # its snapshots are written
        saved = snapshot(redis_server, store, game.game_id)
        known = await play_first_moves(app, game, 3)
        restore(redis_server, saved)
        assert losses(await get(app, game)) == [(kept + 1, known, False)]
        last = await play_first_moves(app, game, 2)
        await app.drain()

        cold, reference = app_on(cold_store, snapshot_interval=2), app_on(reference_store, snapshot_interval=0)
        assert (await get(cold, game, ADMIN)).view == (await get(reference, game, ADMIN)).view
        for at in range(1, last + 1):
            request = api.ReplayGameRequest(game_id=game.game_id, at_version=at)
            assert (await cold.history.replay(request, ADMIN)).view == (
                await reference.history.replay(request, ADMIN)
            ).view, at


@pytest.mark.parametrize("moves_meanwhile", [1, 3, 6])
@async_test
async def test_lost_versions_already_used_again_by_another_server_are_a_fork_said_so(
    redis_server: RedisServer, moves_meanwhile: int
) -> None:
    """A server that never saw the lost versions plays on from the store before the
    one that had them notices: the same numbers now hold other moves. That cannot be
    undone; it is recorded as `reused` (the game is damaged), whether the store is
    still behind the first server's cache, as far as it, or past it. The first server
    notices on its next move too, not only on a read: it never builds on the fork."""
    async with redis_stores(redis_server.url, 2) as (store, elsewhere):
        app, unaware = app_on(store), app_on(elsewhere)
        game = await create_game(app)
        kept = await play_first_moves(app, game, 2)
        saved = snapshot(redis_server, store, game.game_id)
        known = await play_first_moves(app, game, 3)
        restore(redis_server, saved)
        again = await play_first_moves(unaware, game, moves_meanwhile)
        # A move decided on the first server's cache (as it stood before the fork).
        cached = await app.live.load(game.game_id, refresh=False)
        seat = cached.engine.status(cached.state).to_act[0]
        stale = api.SubmitCommandRequest(
            game_id=game.game_id,
            command=legal_commands(cached.engine, cached.state, Viewer.player(seat))[0],
            command_id="stale",
        )
        with contextlib.suppress(ServiceError):  # decided again on the store's history: legal or not
            await app.moves.submit(stale, game.seat_tokens[seat])

        now = await get(app, game)
        ((first, last, reused),) = losses(now)
        assert (first, last, reused) == (kept + 1, known, True)
        history = await events(app, game.game_id)
        assert [e.version for e in history] == list(range(1, len(history) + 1))
        (notice,) = [e for e in history if e.HasField("history_loss") and e.version > e.history_loss.last]
        assert notice.history_loss.reused and notice.version == max(known, again) + 1
        assert notice.description.key == "history.loss_reused"
        assert all(e.command_id != "stale" for e in history[: notice.version])
        assert metric(app, "ludotheque_history_losses_total", kind="mooki", reused="true") == 1
        assert losses(await get(unaware, game)) == losses(now)  # every server says so


@async_test
async def test_a_stream_given_versions_the_store_then_lost_ends_saying_which(own_redis: RedisServer) -> None:
    """Redis comes back from an older append-only file (as a failover to a lagging
    replica would leave it): a live stream that had been given the lost versions ends
    with VERSIONS_LOST; the game records the loss."""
    async with redis_stores(own_redis.url) as (store,):
        app = app_on(store)
        game = await create_game(app)
        kept = await play_first_moves(app, game, 2)
        aof = own_redis.directory / "appendonlydir"
        saved = own_redis.directory / "saved-aof"
        shutil.copytree(aof, saved)
        stream = await app.history.stream_events(api.StreamEventsRequest(game_id=game.game_id), "")
        received: list[int] = []
        known = await play_first_moves(app, game, 3)

        async def follow() -> None:
            async for event in stream.events:
                received.append(event.version)

        follower = asyncio.create_task(follow())
        while len(received) < known:
            await asyncio.sleep(0.01)
        await asyncio.to_thread(own_redis.stop, signal.SIGKILL)
        shutil.rmtree(aof)
        shutil.copytree(saved, aof)
        await asyncio.to_thread(own_redis.start)
        with pytest.raises(ServiceError) as ended:
            await asyncio.wait_for(follower, 30)
        assert (
            ended.value.code is Code.FAILED_PRECONDITION
            and detail(ended.value, error_details_pb2.ErrorInfo).reason == "VERSIONS_LOST"
        )
        assert f"versions {kept + 1} to {known}" in ended.value.message
        assert losses(await get(app, game)) == [(kept + 1, known, False)]


async def acknowledged_events(app: GameApp, game: api.CreateGameResponse) -> dict[int, bytes]:
    """Every event of the game as stored now, by version (what its players were told)."""
    return {event.version: event.SerializeToString() for event in await events(app, game.game_id)}


def assert_nothing_reused(history: list[game_pb2.Event], told: dict[int, bytes], kept: int, known: int) -> None:
    """Versions up to `kept` are what was acknowledged; kept+1..known are placeholders of
    the loss (never other moves); the notice follows them."""
    assert [e.version for e in history] == list(range(1, len(history) + 1))
    for event in history[:kept]:
        assert event.SerializeToString() == told[event.version]
    for event in history[kept:known]:
        assert event.HasField("history_loss") and not event.HasField("command"), event.version
    assert history[known].history_loss.last == known  # the notice


def cached_move(app: GameApp, game: api.CreateGameResponse) -> tuple[api.SubmitCommandRequest, str]:
    """A move of the seat to act in the game as the server has it cached, and its token."""
    cached = app.live.cache.get(game.game_id)
    assert cached is not None
    seat = cached.engine.status(cached.state).to_act[0]
    command = legal_commands(cached.engine, cached.state, Viewer.player(seat))[0]
    move = api.SubmitCommandRequest(game_id=game.game_id, command=command, command_id=uuid.uuid4().hex)
    return move, game.seat_tokens[seat]


@pytest.mark.parametrize("recorded_by", ["the next move", "the background"])
@async_test
async def test_a_loss_the_store_refuses_to_record_is_kept_until_it_is_and_no_version_is_reused(
    own_redis: RedisServer, recorded_by: str
) -> None:
    """The store is found behind while it refuses every write (out of memory: reads
    still answer), so the loss cannot be recorded. It is not forgotten: the game answers
    UNAVAILABLE (moves too) instead of going on from what the store has, its cached
    state may even be dropped, and once the store takes writes again the loss is
    recorded (by the next move, or by the server in the background) before any
    version is given again."""
    async with redis_stores(own_redis.url) as (store,):
        app = app_on(store)
        game = await create_game(app)
        kept = await play_first_moves(app, game, 2)
        saved = snapshot(own_redis, store, game.game_id)
        known = await play_first_moves(app, game, 3)
        told = await acknowledged_events(app, game)
        restore(own_redis, saved)
        own_redis.command("CONFIG", "SET", "maxmemory", 1)  # every write refused from now on
        try:
            with pytest.raises(ServiceError) as reading:
                await get(app, game)  # finds the store behind; recording fails
            assert reading.value.code is Code.UNAVAILABLE
            assert metric(app, "ludotheque_history_losses_unrecorded") == 1
            move, token = cached_move(app, game)  # on what the store has
            with pytest.raises(ServiceError) as moving:
                await app.moves.submit(move, token)
            assert moving.value.code is Code.UNAVAILABLE
            app.live.cache.forget(game.game_id)  # the cache forgets the game; the loss stays owed
        finally:
            own_redis.command("CONFIG", "SET", "maxmemory", 0)
        if recorded_by == "the next move":
            assert (await app.moves.submit(move, token)).version > known + 1
        else:
            await app.start()
            try:
                deadline = asyncio.get_running_loop().time() + 10
                while (await store.info(game.game_id)).version <= known:  # nobody calls: the server records it
                    assert asyncio.get_running_loop().time() < deadline, "the loss was never recorded"
                    await asyncio.sleep(0.02)
            finally:
                await app.stop()
            assert (await app.moves.submit(move, token)).version > known + 1
        assert losses(await get(app, game)) == [(kept + 1, known, False)]
        assert_nothing_reused(await events(app, game.game_id), told, kept, known)
        assert metric(app, "ludotheque_history_losses_unrecorded") == 0


@async_test
async def test_recording_a_loss_tries_again_through_a_failure_of_the_store(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The store fails once while the loss is written (a failover's failures come in
    bursts): the recording tries again in the same call, which answers."""
    async with redis_stores(redis_server.url) as (store,):
        app = app_on(store)
        game = await create_game(app)
        kept = await play_first_moves(app, game, 2)
        saved = snapshot(redis_server, store, game.game_id)
        known = await play_first_moves(app, game, 2)
        told = await acknowledged_events(app, game)
        restore(redis_server, saved)
        append, failed = store.append, list[object]()

        async def failing_once(request: AppendRequest) -> AppendResult:
            if request.command_id.startswith("system/history-loss") and not failed:
                failed.append(request.command_id)
                raise StoreUnavailable("Redis: ConnectionError: Connection closed by server.", "connection")
            return await append(request)

        store.append = failing_once  # type: ignore[method-assign]
        assert losses(await get(app, game)) == [(kept + 1, known, False)]
        assert failed and "recording a loss failed" in caplog.text
        assert_nothing_reused(await events(app, game.game_id), told, kept, known)


@async_test
async def test_a_server_that_never_saw_the_lost_versions_records_them_when_a_player_says_it_was_given_them(
    redis_server: RedisServer,
) -> None:
    """The server that acknowledged the lost versions is gone (restarted, or its
    players moved to another): a fresh server finds nothing wrong with the store, but a
    player says which version it was given (`known_version`), and the fresh server
    records the loss instead of giving those numbers to other moves, if the player shows
    the receipt the first server gave with that version (`known_receipt`). A claim
    without it (or with the receipt of another version) is not believed, whoever makes
    it, nor one far past what a failover could lose; a client that says nothing is
    where it was before."""
    async with redis_stores(redis_server.url, 2) as (store, fresh_store):
        gone = app_on(store)
        game = await create_game(gone)
        kept = await play_first_moves(gone, game, 2)
        saved = snapshot(redis_server, store, game.game_id)
        known = await play_first_moves(gone, game, 3)
        told = await acknowledged_events(gone, game)
        receipt = gone.receipt(game.game_id, known)  # what the player was given with `known`
        restore(redis_server, saved)
        fresh = app_on(fresh_store)  # never cached the game

        async def claim(token: str, version: int, proof: str) -> game_pb2.Game:
            request = api.GetGameRequest(game_id=game.game_id, known_version=version, known_receipt=proof)
            with fresh.claiming(game.game_id, version, proof):
                return await fresh.games.get_game(request, token)

        assert (await claim(game.seat_tokens[0], known, "")).version == kept  # no proof: not believed
        assert (await claim(ADMIN, known, "")).version == kept  # not even from the admin
        assert (await claim(game.seat_tokens[0], known + 1, receipt)).version == kept  # another version's
        far = known + 2000
        assert (await claim(game.seat_tokens[0], far, fresh.receipts.sign(game.game_id, far, 0))).version == kept
        assert not (await get(fresh, game)).history_losses
        assert metric(fresh, "ludotheque_unproven_claims_total") == 3
        seen = await claim("", known, receipt)  # proven: believed, whoever shows it
        assert losses(seen) == [(kept + 1, known, False)] and seen.version == known + 1
        assert_nothing_reused(await events(fresh, game.game_id), told, kept, known)
        assert metric(fresh, "ludotheque_history_losses_total", kind="mooki", reused="false") == 1
        # Over Play too: the join says it (here, nothing past what the store now has).
        live, _ = await fresh.open_game(game.game_id, game.seat_tokens[0], known, receipt)
        assert live.version == known + 1


@async_test
async def test_a_receipt_for_a_version_the_store_now_holds_as_another_move_has_the_fork_recorded(
    redis_server: RedisServer,
) -> None:
    """The server that acknowledged the lost versions is gone, and another one played
    on from the store before any player told it: the lost numbers now hold other
    moves. A player shows the receipt of a version it was given: the receipt names the
    event it was given, the store holds another under that number, and the server
    records the fork (`reused`) instead of serving the changed history as if nothing
    happened. Its own receipts (of the store's history) find nothing wrong."""
    async with redis_stores(redis_server.url, 2) as (store, fresh_store):
        gone = app_on(store)
        game = await create_game(gone)
        await play_first_moves(gone, game, 2)
        saved = snapshot(redis_server, store, game.game_id)
        known = await play_first_moves(gone, game, 3)
        receipt = gone.receipt(game.game_id, known)
        restore(redis_server, saved)
        fresh = app_on(fresh_store)
        again = await play_first_moves(fresh, game, 4)  # the lost numbers, used again
        assert again > known

        async def claim(version: int, proof: str) -> game_pb2.Game:
            with fresh.claiming(game.game_id, version, proof):
                return await fresh.games.get_game(api.GetGameRequest(game_id=game.game_id), game.seat_tokens[0])

        assert not (await claim(known, fresh.receipt(game.game_id, known))).history_losses  # the store's own
        seen = await claim(known, receipt)
        ((first, last, reused),) = losses(seen)
        assert reused and first == known and last == again
        assert metric(fresh, "ludotheque_history_losses_total", kind="mooki", reused="true") == 1
        assert losses(await claim(known, receipt)) == [(first, last, reused)]  # recorded once
