"""The event log's contract (base.EventLog), which every store passes: games created
once with their first events; appends all or nothing, on the version and the event the
caller has, each command id applied once; reads by range, listings, counters; live
subscriptions without gaps or repeats (the `store_factory` fixture, tests/service/conftest.py,
gives one store per backend: memory, Redis, Redis Cluster). Also the connection's
(base.StoreConnection): a store answers while open."""

from __future__ import annotations

import asyncio

import pytest

from service.store.base import (
    AppendRequest,
    AppendResult,
    CommandIdReused,
    CountersChanged,
    GameExists,
    GameNotFound,
    InvalidCursor,
    NewGame,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
    head,
)
from tests.support.aio import async_test, first_versions
from tests.support.stores import StoreFactory, append, create_stored_game


@async_test
async def test_a_new_game_holds_its_first_events(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=3)
        info = await store.info("g1")
        assert (info.kind, info.status, info.version, info.record, info.summary) == (
            "mooki",
            "active",
            3,
            b"record",
            b"summary-0",
        )
        assert info.created_at_ms == info.updated_at_ms == 1000
        assert await store.read("g1", 1) == [StoredEvent(1, b"e1"), StoredEvent(2, b"e2"), StoredEvent(3, b"e3")]


@async_test
async def test_a_game_id_is_created_once(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        with pytest.raises(GameExists):
            await store.create(NewGame("g1", "mooki", "active", b"another record", b"summary-0", [b"x"], 2000))
        # The same creation sent again (a retry after a lost answer) is no error:
        await create_stored_game(store, events=2)
        assert (await store.info("g1")).version == 2
        assert [e.data for e in await store.read("g1", 1)] == [b"e1", b"e2"]


@async_test
async def test_an_append_builds_only_on_the_event_its_caller_has(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)  # its version 2 is b"e2"
        with pytest.raises(VersionConflict) as conflict:
            await store.append(
                AppendRequest("g1", 2, [b"e3"], "c1", b"f", "active", b"s", 2000, after=head(b"another e2"))
            )
        assert conflict.value.current == 2
        assert await store.append(
            AppendRequest("g1", 2, [b"e3"], "c1", b"f", "active", b"s", 2000, after=head(b"e2"))
        ) == AppendResult(3, 3)


@async_test
async def test_append_adds_events_after_the_expected_version(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        result = await store.append(AppendRequest("g1", 2, [b"e3", b"e4"], "c1", b"f", "finished", b"summary-1", 5000))
        assert result == AppendResult(3, 4, replayed=False)
        info = await store.info("g1")
        assert (info.version, info.status, info.summary, info.updated_at_ms) == (4, "finished", b"summary-1", 5000)
        assert [e.data for e in await store.read("g1", 3)] == [b"e3", b"e4"]


@async_test
async def test_a_stale_append_is_refused_and_changes_nothing(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        with pytest.raises(VersionConflict) as conflict:
            await append(store, "g1", 1, b"x")
        assert (conflict.value.expected, conflict.value.current) == (1, 2)
        assert (await store.info("g1")).version == 2
        assert await store.find_command("g1", "c1", b"f") is None


@async_test
async def test_racing_writers_exactly_one_wins_each_version(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        outcomes = await asyncio.gather(
            *(append(store, "g1", 2, b"w%d" % i, command_id=f"w{i}") for i in range(20)), return_exceptions=True
        )
        winners = [o for o in outcomes if isinstance(o, AppendResult)]
        assert len(winners) == 1 and winners[0] == AppendResult(3, 3)
        assert all(isinstance(o, VersionConflict) for o in outcomes if o is not winners[0])
        assert len(await store.read("g1", 1)) == 3


@async_test
async def test_a_command_id_is_applied_once(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        first = await append(store, "g1", 2, b"e3", b"e4", command_id="move-1")
        again = await append(store, "g1", 2, b"e3", b"e4", command_id="move-1")
        assert again == AppendResult(first.first_version, first.last_version, replayed=True)
        later = await append(store, "g1", 4, b"e5", command_id="move-1")  # even at a newer version
        assert later.replayed and later.last_version == 4
        assert (await store.info("g1")).version == 4
        assert await store.find_command("g1", "move-1", b"f") == AppendResult(3, 4, replayed=True)
        assert await store.find_command("g1", "move-2", b"f") is None


@async_test
async def test_a_command_id_reused_for_another_command_is_refused(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        await append(store, "g1", 2, b"e3", command_id="move-1", fingerprint=b"draw")
        with pytest.raises(CommandIdReused):
            await append(store, "g1", 3, b"e4", command_id="move-1", fingerprint=b"place")
        with pytest.raises(CommandIdReused):
            await store.find_command("g1", "move-1", b"place")
        assert (await store.info("g1")).version == 3


@async_test
async def test_command_ids_belong_to_one_game(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, "g1", events=2)
        await create_stored_game(store, "g2", events=2)
        await append(store, "g1", 2, b"a", command_id="same")
        assert (await append(store, "g2", 2, b"b", command_id="same")).replayed is False


@async_test
async def test_reads_by_version_range(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=5)
        assert [e.version for e in await store.read("g1", 2, 4)] == [2, 3, 4]
        assert [e.version for e in await store.read("g1", 0)] == [1, 2, 3, 4, 5]
        assert [e.version for e in await store.read("g1", 4, 99)] == [4, 5]
        assert await store.read("g1", 6) == []
        assert await store.read("g1", 3, 2) == []


@async_test
async def test_unknown_games_are_not_found(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        for call in (
            store.info("nope"),
            store.read("nope", 1),
            append(store, "nope", 0, b"x"),
            store.find_command("nope", "c", b"f"),
        ):
            with pytest.raises(GameNotFound):
                await call
        with pytest.raises(GameNotFound):
            await anext(aiter(store.subscribe("nope", 1)))


@async_test
async def test_games_are_listed_newest_first_by_kind_and_status_a_page_at_a_time(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        for i in range(7):
            await create_stored_game(store, f"g{i}", events=2, kind="mooki" if i % 2 == 0 else "pirates")
        await append(store, "g2", 2, b"end")  # still active
        await store.append(AppendRequest("g4", 2, [b"end"], "end", b"f", "finished", b"s", 3000))
        seen: list[str] = []
        cursor = ""
        while True:
            page = await store.list_games("", "", 3, cursor)
            assert len(page.games) <= 3
            seen += [g.game_id for g in page.games]
            cursor = page.next_cursor
            if not cursor:
                break
        assert seen == [f"g{i}" for i in reversed(range(7))]
        mooki = await store.list_games("mooki", "", 10, "")
        assert [g.game_id for g in mooki.games] == ["g6", "g4", "g2", "g0"] and mooki.next_cursor == ""
        finished = await store.list_games("", "finished", 10, "")
        assert [(g.game_id, g.version) for g in finished.games] == [("g4", 3)]
        active_mooki = await store.list_games("mooki", "active", 2, "")
        rest = await store.list_games("mooki", "active", 2, active_mooki.next_cursor)
        assert [g.game_id for g in active_mooki.games + rest.games] == ["g6", "g2", "g0"]


@async_test
async def test_a_listing_for_everyone_shows_only_the_games_created_listed(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        for i in range(6):
            listed = i % 3 == 0
            await store.create(NewGame(f"g{i}", "mooki", "active", b"r", b"s", [b"e1"], 1000, listed=listed))
        assert [g.listed for g in (await store.list_games("", "", 10, "")).games] == [False, False, True] * 2
        everyone = await store.list_games("", "", 10, "", listed_only=True)
        assert [g.game_id for g in everyone.games] == ["g3", "g0"]
        await store.append(
            AppendRequest("g3", 1, [b"end"], "end", b"f", "finished", b"s", 3000)
        )  # listed under its new status
        assert [g.game_id for g in (await store.list_games("mooki", "finished", 10, "", listed_only=True)).games] == [
            "g3"
        ]
        assert [g.game_id for g in (await store.list_games("", "active", 10, "", listed_only=True)).games] == ["g0"]
        first = await store.list_games("", "", 1, "", listed_only=True)
        rest = await store.list_games("", "", 1, first.next_cursor, listed_only=True)
        assert [g.game_id for g in first.games + rest.games] == ["g3", "g0"]


@async_test
async def test_counters_are_bumped_one_at_a_time_and_their_revision_counts_every_bump(
    store_factory: StoreFactory,
) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        info = await store.info("g1")
        assert (dict(info.counters), info.counters_revision) == ({}, 0)
        assert sorted(await asyncio.gather(*(store.bump("g1", "seat:1") for _ in range(5)))) == [1, 2, 3, 4, 5]
        assert await store.bump("g1", "seat:0") == 1
        info = await store.info("g1")
        assert (dict(info.counters), info.counters_revision) == ({"seat:1": 5, "seat:0": 1}, 6)
        with pytest.raises(GameNotFound):
            await store.bump("nope", "seat:0")


@async_test
async def test_reads_and_appends_conditioned_on_a_stale_counters_revision_are_refused(
    store_factory: StoreFactory,
) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        assert len(await store.read("g1", 1, counters_revision=0)) == 2
        await store.bump("g1", "seat:0")
        with pytest.raises(CountersChanged):
            await store.read("g1", 1, counters_revision=0)
        with pytest.raises(CountersChanged):
            await store.read("g1", 3, counters_revision=0)  # nothing to read: still refused
        with pytest.raises(CountersChanged):
            await store.append(AppendRequest("g1", 2, [b"x"], "c", b"f", "active", b"s", 3000, counters_revision=0))
        assert (await store.info("g1")).version == 2  # nothing appended
        await store.append(AppendRequest("g1", 2, [b"x"], "c", b"f", "active", b"s", 3000, counters_revision=1))
        assert [e.data for e in await store.read("g1", 3, counters_revision=1)] == [b"x"]
        with pytest.raises(CountersChanged):  # even a command id already applied
            await store.append(AppendRequest("g1", 2, [b"x"], "c", b"f", "active", b"s", 3000, counters_revision=0))
        assert len(await store.read("g1", 1)) == 3  # unconditioned reads ignore the counters


@async_test
async def test_subscribers_get_the_past_then_live_events_without_gaps_or_repeats(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=3)
        reader = asyncio.create_task(first_versions(store.subscribe("g1", 2), 2 + 20))
        for version in range(3, 23):  # appends race with the catch-up
            await append(store, "g1", version, b"live%d" % version)
            if version % 5 == 0:
                await asyncio.sleep(0)
        assert await asyncio.wait_for(reader, 10) == list(range(2, 24))


@async_test
async def test_many_subscribers_of_one_game_each_get_every_event(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=1)
        readers = [asyncio.create_task(first_versions(store.subscribe("g1", 1), 11)) for _ in range(5)]
        await asyncio.sleep(0)
        for version in range(1, 11):
            await append(store, "g1", version, b"x")
        for reader in readers:
            assert await asyncio.wait_for(reader, 10) == list(range(1, 12))


@async_test
async def test_a_subscriber_from_the_future_waits_for_that_version(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=1)
        reader = asyncio.create_task(first_versions(store.subscribe("g1", 3), 1))
        await append(store, "g1", 1, b"two")
        await append(store, "g1", 2, b"three")
        assert await asyncio.wait_for(reader, 10) == [3]


@async_test
async def test_ending_subscriptions_ends_every_follower_and_nothing_else(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=1)
        follower = store.subscribe("g1", 1)
        assert (await anext(follower)).version == 1
        waiting = asyncio.ensure_future(anext(follower))  # waits for version 2
        store.end_subscriptions()
        with pytest.raises(StoreUnavailable, match="shutting down"):
            await asyncio.wait_for(waiting, 10)
        with pytest.raises(StoreUnavailable, match="shutting down"):
            await asyncio.wait_for(first_versions(store.subscribe("g1", 1), 2), 10)  # and a later one
        await append(store, "g1", 1, b"two")  # reads and writes go on
        assert [event.version for event in await store.read("g1", 1)] == [1, 2]


@async_test
async def test_ping_answers_while_open(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await store.ping()
        await store.close()
        with pytest.raises(StoreUnavailable):
            await store.ping()


@async_test
async def test_a_cursor_the_store_never_gave_is_refused(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        for i in range(3):
            await create_stored_game(store, f"g{i}", events=2)
        page = await store.list_games("", "", 2, "")
        assert [g.game_id for g in (await store.list_games("", "", 2, page.next_cursor)).games] == ["g0"]
        for cursor in ("99999", "²", "-1", "1x"):
            with pytest.raises(InvalidCursor):
                await store.list_games("", "", 2, cursor)
