"""Snapshots (service/app/model/snapshots.py): a long game keeps one every N events; a cold
GetGame, a replay at any version and a catch-up read about N events, not the game;
and they answer exactly what folding every event answers. A snapshot that does not
match its events is ignored, reported, and written again."""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.model.snapshots import Checkpoint
from service.store.base import EventStore, StoredEvent, StoredSnapshot, head
from service.store.memory import MemoryStore
from tests.support.aio import async_test
from tests.support.apps import ADMIN, bots_request, new_app
from tests.support.stores import StoreFactory

EVERY = 50


class CountingStore:
    """A store that counts the events it reads (the cost snapshots bound)."""

    def __init__(self, inner: EventStore) -> None:
        self.inner = inner
        self.events_read = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def read(
        self, game_id: str, from_version: int, to_version: int | None = None, *, counters_revision: int | None = None
    ) -> list[StoredEvent]:
        events = await self.inner.read(game_id, from_version, to_version, counters_revision=counters_revision)
        self.events_read += len(events)
        return events

    def subscribe(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        return self.inner.subscribe(game_id, from_version)


def app_on(store: Any, every: int = EVERY, **kwargs: Any) -> GameApp:
    return new_app(store, snapshot_interval=every, **kwargs)


async def long_game(store: EventStore) -> tuple[str, int]:
    """A finished game of two random Pirates bots (thousands of events), its snapshots written."""
    app = app_on(store, seed=7)
    game = (await app.games.create_game(bots_request("pirates", 2), ADMIN)).game
    await app.live.snapshots.idle()
    assert game.version > 20 * EVERY
    return game.game_id, game.version


@async_test
async def test_a_long_game_keeps_a_snapshot_every_interval(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        game_id, version = await long_game(store)
        for at in random.Random(1).sample(range(EVERY, version + 1), 30):
            snapshot = await store.snapshot(game_id, at)
            # Taken after the step that passes each multiple: a step is a few events.
            assert snapshot is not None and at - EVERY - 10 < snapshot.version <= at


@async_test
async def test_replays_and_cold_reads_fold_about_one_interval_and_answer_as_a_full_fold() -> None:
    store = CountingStore(MemoryStore())
    game_id, version = await long_game(store)
    folding_everything = app_on(store, every=0)
    with_snapshots = app_on(store)
    for at in [1, 2, EVERY - 1, EVERY, version // 2, version - 3, version]:
        request = api.ReplayGameRequest(game_id=game_id, at_version=at)
        store.events_read = 0
        replayed = await with_snapshots.history.replay(request, ADMIN)
        assert store.events_read <= EVERY + 10, f"at {at}: {store.events_read} events read"
        assert replayed == await folding_everything.history.replay(request, ADMIN)
    store.events_read = 0
    cold = await app_on(store).games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
    assert store.events_read <= EVERY + 10
    assert cold == await folding_everything.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)


@async_test
async def test_a_process_far_behind_catches_up_from_a_snapshot() -> None:
    store = CountingStore(MemoryStore())
    behind, ahead = app_on(store), app_on(store)
    humans = [game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(name="Robin")]
    game_id = (await behind.games.create_game(api.CreateGameRequest(kind="pirates", seats=humans), ADMIN)).game_id
    rng = random.Random(3)
    moves = 0
    while moves < 1000:  # the admin plays both seats on the other process
        game = await ahead.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
        if game.status == game_pb2.GAME_STATUS_FINISHED:
            break
        seat = game.to_act[0]
        command = rng.choice(list(game.legal_commands))
        await ahead.moves.submit(api.SubmitCommandRequest(game_id=game_id, command=command, seat=seat), ADMIN)
        moves += 1
    await ahead.live.snapshots.idle()
    latest = await ahead.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
    assert latest.version > 6 * EVERY
    store.events_read = 0
    caught_up = await behind.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
    assert caught_up == latest
    assert store.events_read <= 4 * EVERY  # two intervals looked at, then the snapshot and what follows
    # What the store has at its version is what it has cached: the next move builds on it.
    live = await behind.live.load(game_id, refresh=False)
    (stored,) = await store.read(game_id, live.version, live.version)
    assert live.in_store.head == head(stored.data) and live.in_store.marks.matches(stored)
    if latest.status != game_pb2.GAME_STATUS_FINISHED:
        command = rng.choice(list(latest.legal_commands))
        request = api.SubmitCommandRequest(game_id=game_id, command=command, seat=latest.to_act[0])
        assert (await behind.moves.submit(request, ADMIN)).version > latest.version
        assert not behind.metrics.registry.get_sample_value("ludotheque_append_conflicts_total", {"kind": "pirates"})


@async_test
async def test_a_game_read_from_a_snapshot_of_its_last_version_builds_on_its_last_event() -> None:
    # An append names the event it builds on (EventStore.append's `after`): a game
    # restored with no event after its snapshot still knows which one that is.
    store = MemoryStore()
    game_id, version = await long_game(store)
    app = app_on(store)
    live = await app.live.load(game_id)
    (last,) = await store.read(game_id, version, version)
    packed = app.live.snapshots.pack(game_id, live.engine, Checkpoint(version, live.state, last.data))
    await store.put_snapshots(game_id, [StoredSnapshot(version, packed)])
    cold = await app_on(store).live.load(game_id)
    assert cold.version == version and cold.in_store.head == head(last.data) and cold.in_store.marks.matches(last)


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda blobs, at: blobs[at][:-3] + b"xyz", id="a corrupt state"),
        pytest.param(lambda blobs, at: blobs[max(v for v in blobs if v < at)], id="another version's snapshot"),
    ],
)
@async_test
async def test_a_snapshot_that_does_not_match_its_events_is_ignored_reported_and_rewritten(
    store_factory: StoreFactory,
    spoil: Callable[[dict[int, bytes], int], bytes],
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with store_factory() as store:
        game_id, version = await long_game(store)
        blobs = {}
        at: int | None = version
        while (snapshot := await store.snapshot(game_id, at)) is not None:
            blobs[snapshot.version] = snapshot.data
            at = snapshot.version - 1
        spoilt = sorted(blobs)[len(blobs) // 2]
        await store.put_snapshots(game_id, [StoredSnapshot(spoilt, spoil(blobs, spoilt))])
        request = api.ReplayGameRequest(game_id=game_id, at_version=spoilt + 3)
        expected = await app_on(store, every=0).history.replay(request, ADMIN)
        app = app_on(store)
        with caplog.at_level(logging.WARNING, logger="service.app.model.snapshots"):
            assert await app.history.replay(request, ADMIN) == expected
        assert [r for r in caplog.records if f"version {spoilt} ignored" in r.getMessage()]
        rejected = app.metrics.registry.get_sample_value(
            "ludotheque_snapshots_rejected_total", {"kind": "pirates", "reason": "corrupt"}
        ) or app.metrics.registry.get_sample_value(
            "ludotheque_snapshots_rejected_total", {"kind": "pirates", "reason": "mismatch"}
        )
        assert rejected == 1
        await app.live.snapshots.idle()
        assert await store.snapshot(game_id, spoilt) == StoredSnapshot(spoilt, blobs[spoilt]), "written again"


@async_test
async def test_a_game_stored_without_snapshots_gets_one_when_it_is_read() -> None:
    store = MemoryStore()
    game_id, version = await _without_snapshots(store)
    assert await store.snapshot(game_id) is None
    app = app_on(store)
    await app.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
    await app.live.snapshots.idle()
    snapshot = await store.snapshot(game_id)
    assert snapshot is not None and snapshot.version == version


async def _without_snapshots(store: EventStore) -> tuple[str, int]:
    game = (await app_on(store, every=0, seed=7).games.create_game(bots_request("pirates", 2), ADMIN)).game
    return game.game_id, game.version


# --- games whose table changes (service/app/model/table.py) ----------------------------------


async def _play_as_admin(app: GameApp, game_id: str, until_version: int, rng: random.Random) -> game_pb2.Game:
    """The admin plays the seats the game waits for until it has `until_version` events."""
    while True:
        game = await app.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
        if game.status == game_pb2.GAME_STATUS_FINISHED or game.version >= until_version:
            return game
        command = rng.choice(list(game.legal_commands))
        await app.moves.submit(api.SubmitCommandRequest(game_id=game_id, command=command, seat=game.to_act[0]), ADMIN)


@async_test
async def test_a_game_taken_over_reads_cold_as_it_is_live() -> None:
    # A snapshot holds the engine's state alone: one is written while the table is as
    # created, and a cold read from it still folds the take-over that came after.
    store = MemoryStore()
    app = app_on(store)
    humans = [game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(name="Robin")]
    created = await app.games.create_game(api.CreateGameRequest(kind="pirates", seats=humans), ADMIN)
    game_id = created.game_id
    rng = random.Random(5)
    before = await _play_as_admin(app, game_id, 2 * EVERY, rng)
    assert before.status == game_pb2.GAME_STATUS_ACTIVE
    await app.takeovers.take_over(api.TakeOverSeatRequest(game_id=game_id, bot="random"), created.seat_tokens[0])
    live = await _play_as_admin(app, game_id, 4 * EVERY, rng)
    await app.live.snapshots.idle()
    snapshot = await store.snapshot(game_id)
    assert snapshot is not None and snapshot.version <= before.version, "none once the table changed"
    cold = await app_on(store).games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
    assert cold.seats[0].taken_over_by == "random"
    live.ClearField("presence")  # Cléo was seen by the live process (her take-over), not by the cold one
    cold.ClearField("presence")
    assert cold == live


@async_test
async def test_a_game_with_open_seats_is_never_snapshotted_and_reads_cold_as_it_is_live() -> None:
    store = MemoryStore()
    app = app_on(store)
    seats = [game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(open=True)]
    created = await app.games.create_game(api.CreateGameRequest(kind="pirates", seats=seats), ADMIN)
    game_id = created.game_id
    await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Robin"), "")
    live = await _play_as_admin(app, game_id, 3 * EVERY, random.Random(6))
    assert live.version >= 3 * EVERY or live.status == game_pb2.GAME_STATUS_FINISHED
    await app.live.snapshots.idle()
    assert await store.snapshot(game_id) is None
    cold = await app_on(store).games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)
    assert cold.seats[1].name == "Robin" and cold == live
