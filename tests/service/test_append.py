"""The one way events are appended (service/app/moves/append.py), branch by branch:
nothing to do, a refusal answered by the first result of its key, a refusal decided on a
stale cache decided again, a refusal that stands, another process first, a store that
lost versions, a seat token rotated meanwhile, a key stored already, a conflict storm,
and what a stored decision brings about. Two GameApps on one MemoryStore stand for two
server processes."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import pytest
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.model.bot_choices import BotChoices
from service.app.model.errors import Code, ServiceError, rule_violation
from service.app.model.heavy_reads import HeavyReads
from service.app.model.live_game import LiveGame
from service.app.moves.append import TOO_FAST, Decide
from service.app.moves.moves import decide as decide_command
from service.app.moves.writer import Decision
from service.store.memory import MemoryStore
from tests.support.aio import async_test
from tests.support.apps import ADMIN, create_game, new_app

INLINE_BOTS = BotChoices(HeavyReads())  # (its games have no bot)


def app(store: MemoryStore, **settings: Any) -> GameApp:
    """One server process on `store`: its game is g1, dealt from seed 7."""
    return new_app(store, 7, prefix="g", **settings)


def draw_decision(key: str) -> Decide:
    """A Decide that plays the first legal move of the seat to act, under `key`."""

    async def decide(live: LiveGame) -> Decision:
        seat = live.status.to_act[0]
        payload = live.engine.legal_commands(live.state, seat)[0]
        state, steps = await decide_command(live, seat, game_pb2.Command(mooki=payload), payload, 0, INLINE_BOTS)
        return Decision(steps, state, key, fingerprint(key))

    return decide


def fingerprint(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


async def cached(one: GameApp, game_id: str) -> LiveGame:
    return await one.live.load(game_id)


def conflicts(one: GameApp) -> float:
    return one.metrics.registry.get_sample_value("ludotheque_append_conflicts_total", {"kind": "mooki"}) or 0


@async_test
async def test_a_decision_with_nothing_to_do_stores_nothing() -> None:
    store = MemoryStore()
    one = app(store)
    created = await create_game(one)
    live = await cached(one, created.game_id)

    async def nothing(live: LiveGame) -> None:
        return None

    done = await one.appends.append(live, nothing)
    assert done.events == [] and not done.replayed and (await store.info(created.game_id)).version == 1


@async_test
async def test_a_refused_request_whose_key_was_played_gets_its_first_result() -> None:
    store = MemoryStore()
    one = app(store)
    created = await create_game(one)
    live = await cached(one, created.game_id)
    first = await one.appends.append(live, draw_decision("0/c1"))
    assert first.first_version == 2 and first.events

    async def refuse(live: LiveGame) -> Decision:
        raise rule_violation("mooki", "already_drawn", "You already drew a card.")

    again = await one.appends.append(live, refuse, key="0/c1", fingerprint=fingerprint("0/c1"))
    assert again.replayed and (again.first_version, again.last_version) == (2, 2) and not again.events


@async_test
async def test_a_refusal_decided_on_a_cache_behind_the_store_is_decided_again() -> None:
    store = MemoryStore()
    one, two = app(store), app(store)
    created = await create_game(one)
    behind = await cached(two, created.game_id)  # two caches version 1
    await one.appends.append(await cached(one, created.game_id), draw_decision("0/c1"))
    seen: list[int] = []

    async def refuse_until_caught_up(live: LiveGame) -> Decision | None:
        seen.append(live.version)
        if live.version < 2:
            raise rule_violation("mooki", "stale", "decided on a stale cache")
        return await draw_decision("1/r1")(live)

    done = await two.appends.append(behind, refuse_until_caught_up, key="1/r1", fingerprint=fingerprint("1/r1"))
    assert seen == [1, 2] and done.first_version == 3


@async_test
async def test_a_refusal_on_the_latest_state_stands() -> None:
    store = MemoryStore()
    one = app(store)
    created = await create_game(one)
    live = await cached(one, created.game_id)

    async def refuse(live: LiveGame) -> Decision:
        raise rule_violation("mooki", "nope", "never")

    with pytest.raises(ServiceError) as refused:
        await one.appends.append(live, refuse, key="0/x", fingerprint=fingerprint("0/x"))
    assert refused.value.code is Code.FAILED_PRECONDITION and (await store.info(created.game_id)).version == 1


@async_test
async def test_another_process_first_makes_it_catch_up_decide_again_and_count_the_conflict() -> None:
    store = MemoryStore()
    one, two = app(store), app(store)
    created = await create_game(one)
    behind = await cached(two, created.game_id)
    await one.appends.append(await cached(one, created.game_id), draw_decision("0/c1"))
    rechecked: list[int] = []
    done = await two.appends.append(behind, draw_decision("x/second"), lambda live: rechecked.append(live.version))
    assert done.first_version == 3  # decided again on version 2, not stored over it
    assert rechecked == [2] and conflicts(two) == 1 and behind.traced_move is None


@async_test
async def test_a_store_that_lost_versions_is_the_truth_and_the_loss_is_recorded() -> None:
    store = MemoryStore()
    one = app(store)
    created = await create_game(one)
    live = await cached(one, created.game_id)
    await one.appends.append(live, draw_decision("0/c1"))
    assert live.version == 2
    # The store loses version 2 (as a Redis failover to a replica that never had it).
    store._games[created.game_id].events.pop()
    done = await one.appends.append(live, draw_decision("0/c2"))
    # Version 2 is never used again: a placeholder holds it, a notice follows, then the move.
    events = await store.read(created.game_id, 1)
    parsed = [game_pb2.Event.FromString(item.data) for item in events]
    kinds = ["loss" if e.HasField("history_loss") else e.WhichOneof("game") for e in parsed]
    assert kinds == ["mooki", "loss", "loss", "mooki"]
    assert done.first_version == 4 and [loss.first for loss in live.losses] == [2] and conflicts(one) == 1


@async_test
async def test_a_seat_token_rotated_meanwhile_is_checked_again_before_anything_is_stored() -> None:
    store = MemoryStore()
    one, two = app(store), app(store)
    created = await create_game(one)
    live = await cached(one, created.game_id)
    await two.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id=created.game_id, seat=0), ADMIN)
    token = created.seat_tokens[0]

    def recheck(live: LiveGame) -> None:
        one.viewers.in_game(live, token)  # the old token: refused once the counters are read

    with pytest.raises(ServiceError) as refused:
        await one.appends.append(live, draw_decision("0/c1"), recheck)
    assert refused.value.code is Code.UNAUTHENTICATED and (await store.info(created.game_id)).version == 1
    assert live.traced_move is None


@async_test
async def test_a_key_another_process_stored_already_is_answered_and_nothing_stored_twice() -> None:
    store = MemoryStore()
    one, two = app(store), app(store)
    created = await create_game(one)
    behind = await cached(two, created.game_id)
    await one.appends.append(await cached(one, created.game_id), draw_decision("0/same"))
    done = await two.appends.append(behind, draw_decision("0/same"))
    assert done.replayed and (done.first_version, done.last_version) == (2, 2)
    assert (await store.info(created.game_id)).version == 2


@async_test
async def test_a_change_that_keeps_conflicting_gives_up_aborted_and_operators_see_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = MemoryStore()
    one, two = app(store), app(store, max_conflict_retries=2)
    created = await create_game(one)
    live = await cached(two, created.game_id)
    mover = await cached(one, created.game_id)
    count = iter(range(100))

    async def always_beaten(live: LiveGame) -> Decision | None:
        # Another process moves the game before each of ours is stored.
        await one.appends.append(mover, draw_decision(f"x/{next(count)}"))
        return await draw_decision(f"y/{next(count)}")(live)

    with caplog.at_level(logging.WARNING), pytest.raises(ServiceError) as refused:
        await two.appends.append(live, always_beaten)
    assert refused.value.code is Code.ABORTED and refused.value.message == TOO_FAST
    storms = two.metrics.registry.get_sample_value("ludotheque_conflict_storms_total", {"kind": "mooki"})
    assert storms == 1 and conflicts(two) == 2
    assert any("conflicted 2 times in a row" in record.getMessage() for record in caplog.records)


@async_test
async def test_a_stored_decision_moves_the_cache_and_tells_the_clocks_schedule() -> None:
    store = MemoryStore()
    one = app(store)
    created = await create_game(one)
    live = await cached(one, created.game_id)
    done = await one.appends.append(live, draw_decision("0/c1"))
    assert live.version == done.last_version == 2 and live.in_store.head
    assert [e.version for e in done.events] == [2] and done.events[0].command_id == "c1"
