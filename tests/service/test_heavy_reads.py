"""Heavy reads beside the move loop (issue 42, item 1): a long export, a long ListEvents
page, ReplayGame far from a snapshot, a long ReplayLog, the import of a long log and a
long catch-up (StreamEvents, Play) run in a pool of worker processes, answering the same
messages (and the same refusals) as when made inline; a catch-up meets the live events
with no gap and no repeat; a caller past its budget, or the process past its own, is
refused with a retry while another caller is still served (a catch-up's chunk waits for
its caller's turn); a finished game's export is made once; a worker that dies fails its
job cleanly and the pool is made anew."""

from __future__ import annotations

import asyncio
import math
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path

from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.contract import Viewer
from service.app.access.origins import ClientAddresses, Origin, calling_from
from service.app.game_app import GameApp
from service.app.model.errors import Code, invalid_argument, retry_after_seconds
from service.app.model.heavy_reads import HeavyReads, HeavySettings
from service.app.play.play_session import play
from tests.support.aio import async_test
from tests.support.apps import ADMIN, bots_request, create_game, new_app, play_first_moves
from tests.support.refusals import expect_error

# Nothing is heavy: all made on the loop.
INLINE = HeavySettings(fold_events=1 << 30, read_events=1 << 30, catch_up_events=1 << 30)


def NOON() -> float:  # noqa: N802 (a fixed clock: the two apps' games are the same)
    return 1_800_000_000.0


def wait_for_word(fifo: str) -> bytes:
    """A worker's job that waits until the test writes a byte to `fifo`."""
    with open(fifo, "rb", buffering=0) as reading:  # (a byte, not what a buffer would take)
        return reading.read(1)


def refuse(reason: str) -> None:
    """A worker's job that fails as a use case does."""
    raise invalid_argument("log", reason)


def stop_the_worker() -> None:
    """A worker's job that kills its worker."""
    os._exit(3)


@contextmanager
def word_channel() -> Iterator[tuple[str, int]]:
    """A FIFO the jobs wait on, and the test's end of it (open for writing: a job's open
    never waits, its read waits for the test's word)."""
    with tempfile.TemporaryDirectory() as directory:
        fifo = str(Path(directory) / "words")
        os.mkfifo(fifo)
        end = os.open(fifo, os.O_RDWR)
        try:
            yield fifo, end
        finally:
            os.close(end)


@asynccontextmanager
async def pool(settings: HeavySettings) -> AsyncIterator[HeavyReads]:
    heavy = HeavyReads(settings, ClientAddresses().calling, lambda token: token == ADMIN)
    try:
        yield heavy
    finally:
        heavy.close()


async def turns() -> None:
    for _ in range(5):
        await asyncio.sleep(0)  # (no time passes: each task gets to where it waits)


@async_test
async def test_a_job_runs_in_a_worker_process_at_a_lower_priority() -> None:
    async with pool(HeavySettings(niceness=7)) as heavy:
        assert await heavy.run("test", "", os.getpid) != os.getpid()
        assert await heavy.run("test", "", os.nice, 0) == os.nice(0) + 7
        assert heavy.served == 2 and heavy.in_flight == 0


@async_test
async def test_long_reads_are_made_in_a_worker_and_answer_the_bytes_made_inline() -> None:
    app = new_app(snapshot_interval=0, clock=NOON)  # no snapshot: a replay folds from the first event
    inline = new_app(snapshot_interval=0, clock=NOON, heavy=INLINE)
    created = await app.games.create_game(bots_request("pirates", 3), ADMIN)
    await inline.games.create_game(bots_request("pirates", 3), ADMIN)
    game_id, last = created.game_id, created.game.version
    try:
        exports = [
            api.ExportGameRequest(game_id=game_id),
            api.ExportGameRequest(game_id=game_id, as_seat=1, locale="fr"),
            api.ExportGameRequest(game_id=game_id, as_spectator=True),
        ]
        for request in exports:
            # The same message (a map's entries may be encoded in another order: protobuf leaves it open).
            assert await app.logs.export_game(request, ADMIN) == await inline.logs.export_game(request, ADMIN)
        assert app.heavy_reads.served == len(exports) and inline.heavy_reads.served == 0
        replay = api.ReplayGameRequest(game_id=game_id, at_version=last - 1)
        assert await app.history.replay(replay, ADMIN) == await inline.history.replay(replay, ADMIN)
        short = api.ReplayGameRequest(game_id=game_id, at_version=app.settings.heavy.fold_events - 10)
        assert await app.history.replay(short, ADMIN) == await inline.history.replay(short, ADMIN)
        assert app.heavy_reads.served == len(exports) + 1  # the short one folded inline
        log = (await app.logs.export_game(exports[0], ADMIN)).log
        steps = api.ReplayLogRequest(log=log, from_version=last - 20, as_seat=0, locale="fr")
        assert await app.log_replays.replay_log(steps, "") == await inline.log_replays.replay_log(steps, "")
        assert app.heavy_reads.served == len(exports) + 2
        for token in (ADMIN, ""):  # (the admin, a spectator: a game of bots has no seat token)
            page = api.ListEventsRequest(game_id=game_id, from_version=2, locale="fr")
            assert await app.history.list_events(page, token) == await inline.history.list_events(page, token)
        assert app.heavy_reads.served == len(exports) + 4
        few = api.ListEventsRequest(game_id=game_id, page_size=10)
        assert await app.history.list_events(few, "") == await inline.history.list_events(few, "")
        assert app.heavy_reads.served == len(exports) + 4  # a short page: on the loop
    finally:
        await stop(app, inline)


@async_test
async def test_a_long_import_is_verified_in_a_worker_and_answers_as_made_inline() -> None:
    app = new_app(clock=NOON)
    inline = new_app(clock=NOON, heavy=INLINE)
    try:
        created = await app.games.create_game(bots_request("pirates", 3), ADMIN)
        await inline.games.create_game(bots_request("pirates", 3), ADMIN)  # (the same game: the next ids match)
        log = (await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id), ADMIN)).log
        assert len(log.events) > app.settings.heavy.read_events
        served = app.heavy_reads.served
        cut = next(e.version - 1 for e in log.events if e.version > 300 and e.HasField("command"))
        for request in (api.ImportGameRequest(log=log), api.ImportGameRequest(log=log, truncate_at=cut)):
            imported = await app.logs.import_game(request, ADMIN)
            assert imported == await inline.logs.import_game(request, ADMIN)
            exports = [
                await each.logs.export_game(api.ExportGameRequest(game_id=imported.game_id), ADMIN)
                for each in (app, inline)
            ]
            assert exports[0] == exports[1] and len(exports[0].log.events) >= cut
        assert app.heavy_reads.served == served + 4 and inline.heavy_reads.served == 0  # (imports and exports)
        for bad in bad_imports(log, cut):  # the same refusal, the first bad event named
            refusal = await expect_error(bad[0], app.logs.import_game(bad[1], ADMIN))
            again = await expect_error(bad[0], inline.logs.import_game(bad[1], ADMIN))
            assert (refusal.message, refusal.details) == (again.message, again.details)
        assert app.heavy_reads.served == served + 8
    finally:
        await stop(app, inline)


def bad_imports(log: game_pb2.GameLog, cut: int) -> list[tuple[Code, api.ImportGameRequest]]:
    """Long logs ImportGame refuses, each with the code it answers: an event missing, a
    move the rules make otherwise, another rules version, a cut in the middle of a move."""
    missing, changed, other_rules = (game_pb2.GameLog() for _ in range(3))
    for copy in (missing, changed, other_rules):
        copy.CopyFrom(log)
    del missing.events[300]
    moved = next(e for e in changed.events if e.version > 300 and e.HasField("command") and e.seat == 0)
    moved.seat = 1
    other_rules.header.rules_version = "0"
    inside = next(e.version - 1 for e in log.events if e.version > cut and not e.HasField("command"))  # in a move
    return [
        (Code.INVALID_ARGUMENT, api.ImportGameRequest(log=missing)),
        (Code.INVALID_ARGUMENT, api.ImportGameRequest(log=changed)),
        (Code.FAILED_PRECONDITION, api.ImportGameRequest(log=other_rules)),
        (Code.INVALID_ARGUMENT, api.ImportGameRequest(log=log, truncate_at=inside)),
    ]


@async_test
async def test_a_long_catch_up_is_prepared_in_a_worker_and_sends_what_the_loop_would() -> None:
    app = new_app(clock=NOON, heavy=replace(HeavySettings(), catch_up_chunk=100))
    inline = new_app(clock=NOON, heavy=INLINE)
    try:
        created = await app.games.create_game(bots_request("pirates", 3), ADMIN)
        await inline.games.create_game(bots_request("pirates", 3), ADMIN)
        game_id, last = created.game_id, created.game.version
        for viewer, locale in ((Viewer.player(1), "fr"), (Viewer.spectator(), "en"), (Viewer.admin(), None)):
            served = app.heavy_reads.served
            followed = [await followed_to_the_end(each, game_id, viewer, locale) for each in (app, inline)]
            assert followed[0] == followed[1]
            assert [event.version for event, _ in followed[0]] == list(range(2, last + 1))
            assert app.heavy_reads.served == served + math.ceil((last - 1) / 100)  # its chunks
        short = api.StreamEventsRequest(game_id=game_id, from_version=last - 10)
        assert len(await visible(app, short)) == 11 and app.heavy_reads.served == served + math.ceil((last - 1) / 100)
    finally:
        await stop(app, inline)


async def followed_to_the_end(
    app: GameApp, game_id: str, viewer: Viewer, locale: str | None
) -> list[tuple[game_pb2.Event, game_pb2.Event | None]]:
    """Every event of a finished game from version 2, as History.follow gives them."""
    live = await app.live.load(game_id)
    return [pair async for pair in app.history.follow(live, viewer, 2, locale)]


async def visible(app: GameApp, request: api.StreamEventsRequest, token: str = "") -> list[game_pb2.Event]:
    stream = await app.history.stream_events(request, token)
    return [event async for event in stream.events]


@async_test
async def test_a_play_sessions_long_catch_up_is_prepared_in_a_worker() -> None:
    apps = [new_app(clock=NOON), new_app(clock=NOON, heavy=INLINE)]
    try:
        sent = []
        for app in apps:
            created = await app.games.create_game(bots_request("pirates", 3), ADMIN)
            sent.append(await session_events(app, created.game_id, created.game.version))
        assert sent[0] == sent[1] and [event.version for event in sent[0]] == list(range(1, len(sent[0]) + 1))
        assert apps[0].heavy_reads.served >= len(sent[0]) // apps[0].settings.heavy.catch_up_chunk
        assert apps[1].heavy_reads.served == 0
    finally:
        await stop(*apps)


@async_test
async def test_a_catch_up_past_the_process_budget_ends_its_stream_with_a_retry() -> None:
    app = new_app(heavy=replace(HeavySettings(), workers=1, waiting=0))
    try:
        created = await app.games.create_game(bots_request("pirates", 3), ADMIN)
        with word_channel() as (fifo, end):
            busy = asyncio.ensure_future(app.heavy_reads.run("ExportGame", "", wait_for_word, fifo))
            await turns()
            request = api.StreamEventsRequest(game_id=created.game_id, from_version=1)
            events = (await app.history.stream_events(request, "")).events
            refused = await expect_error(Code.RESOURCE_EXHAUSTED, anext(events), "HEAVY_READS")
            assert retry_after_seconds(refused.details) == 1
            os.write(end, b"x")
            await busy
        again = (await app.history.stream_events(request, "")).events  # its client comes back: served
        assert (await anext(again)).version == 1
        await again.aclose()  # type: ignore[attr-defined]
    finally:
        await stop(app)


async def session_events(app: GameApp, game_id: str, last: int) -> list[game_pb2.Event]:
    """The events a spectator's Play session from the start is sent, up to `last`."""
    done = asyncio.Event()

    async def requests() -> AsyncIterator[api.PlayRequest]:
        yield api.PlayRequest(join=api.PlayJoin(game_id=game_id, locale="fr"))
        await done.wait()  # (the client stays until it has them all)

    session = play(app, requests(), "")
    events: list[game_pb2.Event] = []
    async with asyncio.timeout(120):  # (a safety net: a session that stops sending fails, not hangs)
        async for response in session:
            events.extend(response.events)
            if events and events[-1].version == last:
                break
    done.set()
    await session.aclose()  # type: ignore[attr-defined]
    return events


@async_test
async def test_a_catch_up_meets_the_live_events_without_a_gap_or_a_repeat() -> None:
    heavy = replace(HeavySettings(), catch_up_events=4, catch_up_chunk=3)
    apps = [new_app(clock=NOON, heavy=heavy), new_app(clock=NOON, heavy=INLINE)]
    try:
        for token in ("seat", ADMIN):
            seen = []
            for app in apps:
                created = await create_game(app)
                before = await play_first_moves(app, created, 6)
                follower = token if token == ADMIN else created.seat_tokens[0]
                request = api.StreamEventsRequest(game_id=created.game_id, from_version=1, locale="fr")
                events = (await app.history.stream_events(request, follower)).events
                got = [await anext(events) for _ in range(3)]  # the past's first chunk; the rest waits
                after = await play_first_moves(app, created, 2)  # the game moves during the catch-up
                while got[-1].version < after:
                    got.append(await anext(events))
                await events.aclose()  # type: ignore[attr-defined]
                for event in got:
                    event.ClearField("command_id")  # (random: play_first_moves')
                seen.append(got)
            assert [event.version for event in seen[0]] == list(range(1, after + 1))  # each once, in order
            assert seen[0] == seen[1]  # (the past as recalled when its chunk is made: before the moves, after)
        assert apps[0].heavy_reads.served == 2 * math.ceil(before / 3) and apps[1].heavy_reads.served == 0
    finally:
        await stop(*apps)


@async_test
async def test_a_finished_games_export_is_made_once() -> None:
    app = new_app()
    created = await app.games.create_game(bots_request("pirates", 3), ADMIN)
    try:
        request = api.ExportGameRequest(game_id=created.game_id, as_seat=2)
        first = await app.logs.export_game(request, ADMIN)
        again = await app.logs.export_game(request, ADMIN)
        assert first == again
        assert app.heavy_reads.served == 1 and app.logs.exports.made == 1
        other = await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id, as_seat=1), ADMIN)
        assert other != first  # another viewer: its own
        assert app.heavy_reads.served == 2
    finally:
        await stop(app)


@async_test
async def test_a_caller_past_its_budget_is_refused_while_another_is_served() -> None:
    settings = HeavySettings(workers=2, per_client=1)
    async with pool(settings) as heavy:
        with word_channel() as (fifo, end):
            with calling_from(Origin("192.0.2.1")):
                held = asyncio.ensure_future(heavy.run("ExportGame", "token a", wait_for_word, fifo))
                await turns()
                refused = await expect_error(
                    Code.RESOURCE_EXHAUSTED, heavy.run("ExportGame", "", os.getpid), "HEAVY_READS_PER_CLIENT"
                )
                assert retry_after_seconds(refused.details) == 1
                assert await heavy.run("ExportGame", ADMIN, os.getpid) != os.getpid()  # the admin: the total only
            with calling_from(Origin("192.0.2.2")):  # another address, the same token: its budget is spent
                await expect_error(Code.RESOURCE_EXHAUSTED, heavy.run("ExportGame", "token a", os.getpid))
                assert await heavy.run("ExportGame", "", os.getpid) != os.getpid()  # another caller: served
                assert await heavy.run("ExportGame", "token b", os.getpid) != os.getpid()
            os.write(end, b"x")
            assert await held == b"x"
            with calling_from(Origin("192.0.2.1")):  # its job done, the caller is served again
                assert await heavy.run("ExportGame", "", os.getpid) != os.getpid()


@async_test
async def test_a_queued_job_waits_for_its_callers_turn_and_is_refused_past_the_process_budget() -> None:
    settings = HeavySettings(workers=1, waiting=0, per_client=1)
    async with pool(settings) as heavy:
        with word_channel() as (fifo, end), calling_from(Origin("192.0.2.1")):
            held = asyncio.ensure_future(heavy.run("CatchUp", "", wait_for_word, fifo, queue=True))
            await turns()
            queued = asyncio.ensure_future(heavy.run("CatchUp", "", os.getpid, queue=True))
            await turns()
            assert not queued.done() and heavy.in_flight == 1  # its caller's turn: not yet, and not refused
            await expect_error(
                Code.RESOURCE_EXHAUSTED, heavy.run("ExportGame", "", os.getpid), "HEAVY_READS_PER_CLIENT"
            )
            with calling_from(Origin("192.0.2.2")):  # another caller, the process full: refused
                await expect_error(
                    Code.RESOURCE_EXHAUSTED, heavy.run("CatchUp", "", os.getpid, queue=True), "HEAVY_READS"
                )
            os.write(end, b"x")
            assert await held == b"x" and await queued != os.getpid()
            assert heavy.most_in_flight == 1 and heavy.in_flight == 0


@async_test
async def test_the_process_holds_so_many_jobs_and_a_job_counts_until_it_is_over() -> None:
    settings = HeavySettings(workers=1, waiting=1, per_client=0)
    async with pool(settings) as heavy:
        with word_channel() as (fifo, end):
            jobs = [asyncio.ensure_future(heavy.run("ReplayLog", "", wait_for_word, fifo)) for _ in range(2)]
            await turns()
            await expect_error(Code.RESOURCE_EXHAUSTED, heavy.run("ReplayLog", "", os.getpid), "HEAVY_READS")
            jobs[1].cancel()  # its caller left: its job still counts until it is over
            await turns()
            await expect_error(Code.RESOURCE_EXHAUSTED, heavy.run("ReplayLog", "", os.getpid), "HEAVY_READS")
            os.write(end, b"ab")
            assert await jobs[0] in (b"a", b"b")
            while heavy.in_flight:
                await asyncio.sleep(0)  # the cancelled one's answer comes back (no time asked for)
            assert heavy.most_in_flight == settings.workers + settings.waiting
            assert await heavy.run("ReplayLog", "", os.getpid) != os.getpid()


@async_test
async def test_a_worker_that_dies_fails_its_job_cleanly_and_the_pool_is_made_anew() -> None:
    async with pool(HeavySettings()) as heavy:
        before = await heavy.run("ReplayGame", "", os.getpid)
        error = await expect_error(Code.UNAVAILABLE, heavy.run("ReplayGame", "", stop_the_worker))
        assert "try again" in error.message and heavy.failed == 1
        after = await heavy.run("ReplayGame", "", os.getpid)
        assert after not in (before, os.getpid()) and heavy.in_flight == 0


@async_test
async def test_a_jobs_error_is_the_callers_and_the_worker_goes_on() -> None:
    async with pool(HeavySettings()) as heavy:
        worker = await heavy.run("ReplayLog", "", os.getpid)
        error = await expect_error(Code.INVALID_ARGUMENT, heavy.run("ReplayLog", "", refuse, "not a log"))
        assert "not a log" in error.message and error.details
        assert await heavy.run("ReplayLog", "", os.getpid) == worker and heavy.failed == 0


@async_test
async def test_the_settings_declare_what_is_heavy() -> None:
    app = new_app(heavy=replace(HeavySettings(), read_events=10, fold_events=10))
    try:
        created = await app.games.create_game(bots_request("mooki", 2), ADMIN)
        assert created.game.version >= 10
        await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id, as_seat=0), ADMIN)
        assert app.heavy_reads.served == 1  # a short game, past a low threshold
    finally:
        await stop(app)


async def stop(*apps: GameApp) -> None:
    for app in apps:
        app.heavy_reads.close()
