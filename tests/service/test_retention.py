"""Retention (service/app/keeping/retention.py): finished and abandoned games expire after
their times to live, exported first when asked, once across several processes, and
are unlisted; a game that moves meanwhile stays; the admin's DeleteGame."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.access.limits import NO_LIMITS
from service.app.keeping import retention as retention_module
from service.app.keeping.retention import RetentionPolicy
from service.app.logs.verify import Replayed, verify
from service.app.model import gamelog
from service.app.model.errors import Code
from service.store.base import EventStore
from service.store.memory import MemoryStore
from tests.support.aio import async_test
from tests.support.apps import ADMIN, BOTS, DRAW_LEFT, create_request, new_app, submit
from tests.support.clock import Clock
from tests.support.refusals import expect_error
from tests.support.stores import StoreFactory, memory_store

HOUR = 3600.0
POLICY = RetentionPolicy(finished_ttl=2 * HOUR, abandoned_ttl=10 * HOUR)
LIVE = "live:ip:unknown"  # the live games of the creator these tests create as (service/app/access/limits.py)


def app_on(store: EventStore, clock: Clock, policy: RetentionPolicy = POLICY, **options: Any) -> GameApp:
    """A server process on `store`: its game ids are its own. Its `clock` starts at the
    real time (Redis expires keys by its own) and is then moved by hand."""
    return new_app(store, clock=clock, prefix=None, retention=policy, **options)


async def listed(app: GameApp) -> list[str]:
    return [game.game_id for game in (await app.games.list_games(api.ListGamesRequest(), ADMIN)).games]


def expired(app: GameApp, reason: str) -> float:
    found = app.metrics.registry.get_sample_value("ludotheque_games_expired_total", {"kind": "mooki", "reason": reason})
    return found or 0.0


@async_test
async def test_a_finished_game_expires_after_its_time_to_live_exported_first(
    store_factory: StoreFactory, tmp_path: Path
) -> None:
    clock = Clock(time.time())
    async with store_factory() as store:
        app = app_on(store, clock, RetentionPolicy(finished_ttl=2 * HOUR, export_dir=str(tmp_path)))
        finished = (await app.games.create_game(create_request(*BOTS), ADMIN)).game_id  # bots play it out at once
        playing = (await app.games.create_game(create_request(), "")).game_id
        expected = (await app.logs.export_game(api.ExportGameRequest(game_id=finished), ADMIN)).log
        clock.now += 2 * HOUR - 1
        assert await app.retention.review() == 0
        clock.now += 1
        assert await app.retention.review() == 1
        await expect_error(Code.NOT_FOUND, app.games.get_game(api.GetGameRequest(game_id=finished), ""))
        assert await listed(app) == [playing]
        assert expired(app, "finished") == 1
        exported = gamelog.parse((tmp_path / f"{finished}.jsonl").read_bytes())
        assert exported == expected and isinstance(verify(exported), Replayed)
        assert [p.name for p in tmp_path.iterdir()] == [f"{finished}.jsonl"]  # nothing half written


@async_test
async def test_an_online_game_expires_exported_with_the_words_export_gives_it(tmp_path: Path) -> None:
    # Its players joined open seats: the exported log names them as ExportGame does.
    clock = Clock(time.time())
    app = app_on(MemoryStore(), clock, RetentionPolicy(abandoned_ttl=HOUR, export_dir=str(tmp_path)))
    seats = [game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(open=True)]
    game_id = (await app.games.create_game(api.CreateGameRequest(kind="mooki", seats=seats), ADMIN)).game_id
    await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Robin"), "")
    game = await app.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
    while 1 not in game.to_act:  # until Robin plays a move: the words of its events name him
        move = api.SubmitCommandRequest(game_id=game_id, command=game.legal_commands[0], seat=game.to_act[0])
        await app.moves.submit(move, ADMIN)
        game = await app.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
    await app.moves.submit(api.SubmitCommandRequest(game_id=game_id, command=game.legal_commands[0], seat=1), ADMIN)
    expected = (await app.logs.export_game(api.ExportGameRequest(game_id=game_id), ADMIN)).log
    assert any(event.seat == 1 and "Robin" in event.description.text for event in expected.events)
    clock.now += HOUR
    assert await app.retention.review() == 1
    assert gamelog.parse((tmp_path / f"{game_id}.jsonl").read_bytes()) == expected


@async_test
async def test_a_game_without_a_move_for_its_time_to_live_is_abandoned() -> None:
    clock = Clock(time.time())
    async with memory_store() as store:
        app = app_on(store, clock)
        created = await app.games.create_game(create_request(), "")
        clock.now += 6 * HOUR
        await app.moves.submit(submit(created.game_id, DRAW_LEFT, "1"), created.seat_tokens[0])
        clock.now += 4 * HOUR  # ten hours after creation, four after the move: kept
        await app.retention.review()
        assert await listed(app) == [created.game_id]
        clock.now += 6 * HOUR - 1
        await app.retention.review()
        assert await listed(app) == [created.game_id]
        clock.now += 1
        assert await app.retention.review() == 1
        assert await listed(app) == [] and expired(app, "abandoned") == 1


@async_test
async def test_a_game_that_goes_unfinished_leaves_its_creators_live_games() -> None:
    clock = Clock(time.time())
    async with memory_store() as store:
        app = app_on(store, clock, limits=replace(NO_LIMITS, live_games=2))
        abandoned = (await app.games.create_game(create_request(), "")).game_id
        deleted = (await app.games.create_game(create_request(), "")).game_id
        assert await store.members(LIVE, app.now_ms()) == sorted([abandoned, deleted])
        await app.retention.delete_game(api.DeleteGameRequest(game_id=deleted), ADMIN)
        assert await store.members(LIVE, app.now_ms()) == [abandoned]
        clock.now += 10 * HOUR
        assert await app.retention.review() == 1
        assert await store.members(LIVE, app.now_ms()) == []


@async_test
async def test_several_processes_expire_each_game_once_and_unlist_it(
    store_factory: StoreFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[Path] = []
    write = retention_module._write_whole

    def counted(path: Path, data: bytes) -> None:
        written.append(path)
        write(path, data)

    monkeypatch.setattr(retention_module, "_write_whole", counted)
    clock = Clock(time.time())
    policy = RetentionPolicy(finished_ttl=HOUR, export_dir=str(tmp_path))
    async with store_factory() as store:
        processes = [app_on(store, clock, policy) for _ in range(3)]
        games = [(await processes[i % 3].games.create_game(create_request(*BOTS), ADMIN)).game_id for i in range(12)]
        staying = (await processes[0].games.create_game(create_request(), "")).game_id
        clock.now += HOUR
        await asyncio.gather(*(process.retention.review() for process in processes))
        assert sorted(written) == sorted(tmp_path / f"{game_id}.jsonl" for game_id in games)
        assert sum(expired(process, "finished") for process in processes) == len(games)
        assert await listed(processes[1]) == [staying]
        assert await store.due_games(int(clock.now * 1000) + 365 * 24 * 3_600_000, 100) == [staying]


@async_test
async def test_a_game_that_moves_while_it_expires_stays() -> None:
    clock = Clock(time.time())
    async with memory_store() as store:
        app = app_on(store, clock)
        created = await app.games.create_game(create_request(), "")
        game_id = created.game_id
        other = app_on(store, clock)
        claim = store.claim

        async def claim_then_move(*args: Any) -> bool:
            claimed = await claim(*args)
            await other.moves.submit(submit(game_id, DRAW_LEFT, "late"), created.seat_tokens[0])  # the last second
            return claimed

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(store, "claim", claim_then_move)
            clock.now += 10 * HOUR
            assert await app.retention.review() == 1
        assert (await app.games.get_game(api.GetGameRequest(game_id=game_id), "")).version == 2
        assert expired(app, "abandoned") == 0
        clock.now += 10 * HOUR
        assert await app.retention.review() == 1
        assert await listed(app) == []


@async_test
async def test_a_setting_changed_later_reaches_games_kept_forever() -> None:
    clock = Clock(time.time())
    async with memory_store() as store:
        keeping = app_on(store, clock, RetentionPolicy(finished_ttl=0))
        game_id = (await keeping.games.create_game(create_request(*BOTS), ADMIN)).game_id
        clock.now += 400 * 24 * HOUR
        assert await keeping.retention.review() == 1  # looked at again, kept
        assert await listed(keeping) == [game_id]
        stricter = app_on(store, clock, RetentionPolicy(finished_ttl=30 * 24 * HOUR))
        clock.now += 24 * HOUR
        assert await stricter.retention.review() == 1
        assert await listed(stricter) == []


@async_test
async def test_only_the_admin_deletes_a_game_and_its_followers_are_told() -> None:
    async with memory_store() as store:
        app = app_on(store, Clock(time.time()))
        created = await app.games.create_game(create_request(), "")
        game_id = created.game_id
        request = api.DeleteGameRequest(game_id=game_id)
        await expect_error(Code.UNAUTHENTICATED, app.retention.delete_game(request, ""))
        await expect_error(Code.PERMISSION_DENIED, app.retention.delete_game(request, created.seat_tokens[0]))
        await expect_error(
            Code.INVALID_ARGUMENT, app.retention.delete_game(api.DeleteGameRequest(game_id="a/b"), ADMIN)
        )
        stream = (await app.history.stream_events(api.StreamEventsRequest(game_id=game_id), "")).events
        assert (await anext(stream)).version == 1
        waiting = asyncio.ensure_future(anext(stream))
        assert await app.retention.delete_game(request, ADMIN) == api.DeleteGameResponse()
        await expect_error(Code.NOT_FOUND, waiting)
        await expect_error(Code.NOT_FOUND, app.games.get_game(api.GetGameRequest(game_id=game_id), ""))
        await expect_error(Code.NOT_FOUND, app.retention.delete_game(request, ADMIN))
        assert await listed(app) == [] and expired(app, "deleted") == 1
