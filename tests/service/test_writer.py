"""The one writer of a game's events (service/app/moves/writer.py): whatever writes them
(a creation, an import, a move and the bots' replies, a table change), the store lists
the game as the writer leaves it in the cache (its status label and summary, its
version), and the events it stored are numbered on from the last, each stamped with
the write's time and the rules it was played under, the last one saying whether the
game is over."""

from __future__ import annotations

import itertools

from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.model.stored import parse_event
from service.app.views.listing import status_label, summary
from tests.support.aio import async_test
from tests.support.apps import ADMIN, DRAW_LEFT, bots_request, create_game, new_app, submit

NOW_MS = 1_700_000_000_000


def ticking() -> tuple[GameApp, list[int]]:
    """An app whose clock says a new second at each write asked of it (what it says
    last is `said[-1]`), so that each write's stamp is its own."""
    said: list[int] = []
    seconds = itertools.count(NOW_MS // 1000)

    def clock() -> float:
        said.append(next(seconds) * 1000)
        return said[-1] / 1000

    return new_app(clock=clock), said


async def listed_as_cached(app: GameApp, game_id: str) -> game_pb2.Game:
    """The game as the store lists it, checked against the game the writer left cached."""
    info = await app.store.info(game_id)
    live = app.live.cache.get(game_id)
    assert live is not None
    assert info.version == live.version
    assert info.status == status_label(live.status, live.table.started)
    listed = game_pb2.Game.FromString(info.summary)
    assert listed == summary(live)
    return listed


async def stored_events(app: GameApp, game_id: str) -> list[game_pb2.Event]:
    return [parse_event(item) for item in await app.store.read(game_id, 1)]


def assert_stamped(events: list[game_pb2.Event], first: int, rules_version: str, finished: bool) -> set[int]:
    """Events `first`.. are numbered on, under `rules_version`, the last one saying
    whether the game is over and no other; the times they were stamped with."""
    written = events[first - 1 :]
    assert [event.version for event in written] == list(range(first, first + len(written)))
    assert {event.rules_version for event in written} == {rules_version}
    assert [event.game_over for event in written] == [False] * (len(written) - 1) + [finished]
    return {event.recorded_at.ToMilliseconds() for event in written}


@async_test
async def test_a_creation_and_a_move_are_listed_as_the_writer_leaves_them() -> None:
    app, said = ticking()
    created = await create_game(app)
    listed = await listed_as_cached(app, created.game_id)
    assert listed.status == game_pb2.GAME_STATUS_ACTIVE
    events = await stored_events(app, created.game_id)
    rules = created.game.rules_version
    assert assert_stamped(events, 1, rules, finished=False) == {listed.updated_at.ToMilliseconds()}
    moved = await app.moves.submit(submit(created.game_id, DRAW_LEFT, "c1"), created.seat_tokens[0])
    listed = await listed_as_cached(app, created.game_id)
    assert listed.version == moved.version > len(events)
    after = await stored_events(app, created.game_id)
    assert assert_stamped(after, len(events) + 1, rules, finished=False) == {listed.updated_at.ToMilliseconds()}
    assert {event.command_id for event in after[len(events) :]} == {"c1"}
    assert listed.updated_at.ToMilliseconds() in said


@async_test
async def test_a_game_of_bots_played_out_at_its_creation_is_written_over_and_counted_once() -> None:
    app = new_app()
    created = await app.games.create_game(bots_request("mooki", 2), "")
    listed = await listed_as_cached(app, created.game_id)
    assert listed.status == game_pb2.GAME_STATUS_FINISHED and listed.outcome.summary
    assert_stamped(await stored_events(app, created.game_id), 1, created.game.rules_version, finished=True)
    registry = app.metrics.registry
    assert registry.get_sample_value("ludotheque_games_created_total", {"kind": "mooki"}) == 1
    assert (
        sum(
            sample.value
            for metric in registry.collect()
            if metric.name == "ludotheque_games_finished"
            for sample in metric.samples
            if sample.name == "ludotheque_games_finished_total"
        )
        == 1
    )


@async_test
async def test_an_open_game_and_the_join_that_deals_it_are_listed_as_the_writer_leaves_them() -> None:
    app = new_app()
    created = await create_game(app, {"name": "Cléo"}, {"open": True})
    assert (await listed_as_cached(app, created.game_id)).status == game_pb2.GAME_STATUS_OPEN
    assert await stored_events(app, created.game_id) == []
    joined = await app.seating.join_game(api.JoinGameRequest(game_id=created.game_id, name="Robin"), "")
    listed = await listed_as_cached(app, created.game_id)
    assert listed.status == game_pb2.GAME_STATUS_ACTIVE and listed.seats[1].name == "Robin"
    events = await stored_events(app, created.game_id)
    assert events[0].HasField("table") and listed.version == joined.game.version == len(events)
    assert_stamped(events, 1, created.game.rules_version, finished=False)


@async_test
async def test_an_import_is_listed_as_the_writer_leaves_it_and_its_events_are_the_logs() -> None:
    app = new_app()
    created = await create_game(app)
    await app.moves.submit(submit(created.game_id, DRAW_LEFT, "c1"), created.seat_tokens[0])
    exported = await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id), ADMIN)
    imported = await app.logs.import_game(api.ImportGameRequest(log=exported.log), ADMIN)
    listed = await listed_as_cached(app, imported.game_id)
    assert listed.version == len(exported.log.events) and listed.status == game_pb2.GAME_STATUS_ACTIVE
    original = await stored_events(app, created.game_id)
    copied = await stored_events(app, imported.game_id)
    assert [(e.version, e.command_id, e.recorded_at) for e in copied] == [
        (e.version, e.command_id, e.recorded_at) for e in original
    ]


@async_test
async def test_a_loss_two_processes_record_at_once_is_stored_once_and_each_cache_holds_the_stored_record() -> None:
    # Two server processes on one store find the same loss and record it under the same
    # key: the second append is answered as the first's replay. The second process must
    # not take its own events (stamped at its own time) for what the store holds: the
    # nemesis saw it as a fork of the version the record took.
    first, said = ticking()
    second = new_app(first.store, clock=lambda: said[-1] / 1000 + 7)
    created = await create_game(first)
    late = await second.live.load(created.game_id)
    live = first.live.cache.get(created.game_id)
    assert live is not None and late.version == live.version
    loss = game_pb2.HistoryLoss(first=live.version + 1, last=live.version + 2)
    assert await first.writer.record_loss(live, loss, 2, NOW_MS)
    assert not await second.writer.record_loss(late, loss, 2, NOW_MS + 7_000)
    assert late.version == created.game.version and list(late.losses) == []
    stored = await stored_events(first, created.game_id)
    assert [event.version for event in stored[-3:]] == [live.version - 2, live.version - 1, live.version]
    assert {event.recorded_at.ToMilliseconds() for event in stored[-3:]} == {NOW_MS}
