"""The event store contract: every store implementation passes these tests (the
`store_factory` fixture in tests/service/conftest.py gives one store per backend)."""

from __future__ import annotations

import asyncio
import time

import pytest

from service.store.base import (
    Admission,
    AppendResult,
    CommandIdReused,
    CountersChanged,
    GameExists,
    GameNotFound,
    InvalidCursor,
    Keep,
    StoredEvent,
    StoredSnapshot,
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
            await store.create("g1", "mooki", "active", b"another record", b"summary-0", [b"x"], 2000)
        # The same creation sent again (a retry after a lost answer) is no error:
        await create_stored_game(store, events=2)
        assert (await store.info("g1")).version == 2
        assert [e.data for e in await store.read("g1", 1)] == [b"e1", b"e2"]


@async_test
async def test_an_append_builds_only_on_the_event_its_caller_has(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)  # its version 2 is b"e2"
        with pytest.raises(VersionConflict) as conflict:
            await store.append("g1", 2, [b"e3"], "c1", b"f", "active", b"s", 2000, after=head(b"another e2"))
        assert conflict.value.current == 2
        assert await store.append(
            "g1", 2, [b"e3"], "c1", b"f", "active", b"s", 2000, after=head(b"e2")
        ) == AppendResult(3, 3)


@async_test
async def test_append_adds_events_after_the_expected_version(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        result = await store.append("g1", 2, [b"e3", b"e4"], "c1", b"f", "finished", b"summary-1", 5000)
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
        await store.append("g4", 2, [b"end"], "end", b"f", "finished", b"s", 3000)
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
            await store.create(f"g{i}", "mooki", "active", b"r", b"s", [b"e1"], 1000, listed=listed)
        assert [g.listed for g in (await store.list_games("", "", 10, "")).games] == [False, False, True] * 2
        everyone = await store.list_games("", "", 10, "", listed_only=True)
        assert [g.game_id for g in everyone.games] == ["g3", "g0"]
        await store.append("g3", 1, [b"end"], "end", b"f", "finished", b"s", 3000)  # listed under its new status
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
            await store.append("g1", 2, [b"x"], "c", b"f", "active", b"s", 3000, counters_revision=0)
        assert (await store.info("g1")).version == 2  # nothing appended
        await store.append("g1", 2, [b"x"], "c", b"f", "active", b"s", 3000, counters_revision=1)
        assert [e.data for e in await store.read("g1", 3, counters_revision=1)] == [b"x"]
        with pytest.raises(CountersChanged):  # even a command id already applied
            await store.append("g1", 2, [b"x"], "c", b"f", "active", b"s", 3000, counters_revision=0)
        assert len(await store.read("g1", 1)) == 3  # unconditioned reads ignore the counters


@async_test
async def test_admit_holds_a_set_to_its_limit_until_a_member_is_released(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        for member in ("a", "b", "c"):
            assert await store.admit("live:ip:1", member, 3, 1000) == Admission(True)
        assert await store.admit("live:ip:1", "d", 3, 2000) == Admission(False, None)
        assert await store.admit("live:ip:1", "b", 3, 2000) == Admission(True)  # already in
        assert await store.admit("live:ip:2", "d", 3, 2000) == Admission(True)  # another set
        await store.release("live:ip:1", "b")
        await store.release("live:ip:1", "nobody")
        assert await store.members("live:ip:1", 9_999_999) == ["a", "c"]
        assert await store.admit("live:ip:1", "d", 3, 3000) == Admission(True)
        assert await store.members("live:ip:1", 3000) == ["a", "c", "d"]


@async_test
async def test_admit_with_a_ttl_is_a_sliding_window_that_says_when_to_come_back(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        window = 60_000
        assert (await store.admit("rate:k", "1", 2, 1000, window)).admitted
        assert (await store.admit("rate:k", "2", 2, 21_000, window)).admitted
        assert await store.admit("rate:k", "3", 2, 30_000, window) == Admission(False, 31_000)
        assert await store.members("rate:k", 30_000) == ["1", "2"]
        assert await store.admit("rate:k", "3", 2, 61_000, window) == Admission(True)  # "1" expired at 61 000
        assert await store.members("rate:k", 61_000) == ["2", "3"]
        assert await store.admit("rate:k", "4", 2, 61_001, window) == Admission(False, 19_999)


@async_test
async def test_racing_admissions_never_overfill_a_set(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        assert (await store.admit("quota", "m0", 5, 1000)).admitted  # (connected before the race)
        outcomes = await asyncio.gather(*(store.admit("quota", f"m{i}", 5, 1000) for i in range(1, 30)))
        assert sum(outcome.admitted for outcome in outcomes) == 4
        assert len(await store.members("quota", 1000)) == 5


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


@async_test
async def test_the_snapshot_kept_nearest_at_or_before_a_version_is_found(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=3)
        assert await store.snapshot("g1") is None
        await store.put_snapshots("g1", [StoredSnapshot(100, b"at 100"), StoredSnapshot(200, b"at\x00200")])
        await store.put_snapshots("g1", [StoredSnapshot(150, b"at 150")])
        await store.put_snapshots("g1", [StoredSnapshot(100, b"again at 100")])  # replaces
        assert await store.snapshot("g1") == StoredSnapshot(200, b"at\x00200")
        assert await store.snapshot("g1", 199) == StoredSnapshot(150, b"at 150")
        assert await store.snapshot("g1", 149) == StoredSnapshot(100, b"again at 100")
        assert await store.snapshot("g1", 99) is None
        with pytest.raises(GameNotFound):
            await store.snapshot("nope")
        await store.put_snapshots("nope", [StoredSnapshot(1, b"orphan")])  # kept nowhere
        with pytest.raises(GameNotFound):
            await store.info("nope")


@async_test
async def test_games_are_listed_for_review_when_their_time_comes(store_factory: StoreFactory) -> None:
    now = int(time.time() * 1000)  # Redis expires keys by its own clock: times must be real ones
    later = now + 86_400_000
    async with store_factory() as store:
        await store.create("late", "mooki", "active", b"r", b"s", [b"e1"], now, Keep(now + 9000, later))
        await store.create("soon", "mooki", "active", b"r", b"s", [b"e1"], now, Keep(now + 5000, later))
        await store.create("never", "mooki", "active", b"r", b"s", [b"e1"], now)
        assert await store.due_games(now + 4999, 10) == []
        assert await store.due_games(now + 9000, 10) == ["soon", "late"]
        assert await store.due_games(now + 9000, 1) == ["soon"]
        await store.keep("soon", Keep(now + 20000, later))  # a review found it must stay
        await store.append("late", 1, [b"e2"], "c", b"f", "finished", b"s", now, Keep(0, 0))  # kept forever
        assert await store.due_games(now + 19999, 10) == []
        assert await store.due_games(now + 20000, 10) == ["soon"]
        with pytest.raises(GameNotFound):
            await store.keep("nope", Keep(now, later))


@async_test
async def test_one_owner_at_a_time_may_expire_a_game(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=2)
        assert await store.claim("g1", "process-a", 5000, 1000)
        assert not await store.claim("g1", "process-b", 6000, 4999)
        assert await store.claim("g1", "process-a", 7000, 4999)  # its own claim, renewed
        assert await store.claim("g1", "process-b", 9000, 7001)  # a's claim ran out
        with pytest.raises(GameNotFound):
            await store.claim("nope", "process-a", 5000, 1000)


@async_test
async def test_a_deleted_game_is_gone_everywhere_and_its_followers_are_told(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, "g1", events=3)
        await create_stored_game(store, "g2", events=2)
        await store.put_snapshots("g1", [StoredSnapshot(2, b"snap")])
        await store.keep("g1", Keep(500, int(time.time() * 1000) + 86_400_000))
        follower = store.subscribe("g1", 1)
        assert [(await anext(follower)).version for _ in range(3)] == [1, 2, 3]
        waiting = asyncio.ensure_future(anext(follower))
        assert not await store.delete("g1", version=2)  # no longer at that version: kept
        assert (await store.info("g1")).version == 3
        assert await store.delete("g1", version=3)
        with pytest.raises(GameNotFound):
            await waiting
        for gone in (store.info("g1"), store.read("g1", 1), store.snapshot("g1"), store.delete("g1")):
            with pytest.raises(GameNotFound):
                await gone
        with pytest.raises(GameNotFound):
            await append(store, "g1", 3, b"late")
        assert [g.game_id for g in (await store.list_games("", "", 10, "")).games] == ["g2"]
        assert [g.game_id for g in (await store.list_games("", "", 10, "", listed_only=True)).games] == ["g2"]
        assert await store.due_games(1000, 10) == []
        await store.forget("g1")  # unlisting again changes nothing
        assert (await store.info("g2")).version == 2


@async_test
async def test_a_key_is_marked_once_until_its_mark_expires(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        assert await store.mark_once("ticket-1", 60_000)
        assert not await store.mark_once("ticket-1", 60_000)  # spent
        assert await store.mark_once("ticket-2", 60_000)  # another key is another mark
        racing = await asyncio.gather(*(store.mark_once("ticket-3", 60_000) for _ in range(20)))
        assert racing.count(True) == 1
        assert await store.mark_once("brief", 50)
        deadline = asyncio.get_running_loop().time() + 10
        while not await store.mark_once("brief", 50):  # refused until the mark expires, then marked again
            assert asyncio.get_running_loop().time() < deadline, "the mark never expired"
            await asyncio.sleep(0.01)
        assert not await store.mark_once("ticket-1", 60_000)


# --- coordination: claims, process leases and holders, notices, the schedule ---------------------------


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
