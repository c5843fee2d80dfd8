"""Bounded games: a game that reaches its kind's event limit is stopped by an event of
its own (nobody wins, the log still verifies), and a long chain of bot moves lets
other requests in while it plays."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import AsyncIterator

import pytest
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.contract import SeatInfo, fold
from engines.registry import AnyEngine
from service.app.access.origins import Origin, calling_from
from service.app.logs.verify import Problem, Replayed, verify
from service.app.model.errors import Code, retry_after_seconds
from service.cli import build_parser
from service.cli.config import from_arguments
from tests.support.aio import async_test
from tests.support.apps import ADMIN, DRAW_LEFT, PLACE_SHOWN, bots_request, create_request, new_app, submit
from tests.support.kinds import EVERY_ENGINE, EVERY_KIND
from tests.support.refusals import expect_error


async def admin_log(app: object, game_id: str) -> game_pb2.GameLog:
    exported = await app.logs.export_game(api.ExportGameRequest(game_id=game_id), ADMIN)  # type: ignore[attr-defined]
    return exported.log  # type: ignore[no-any-return]


def _bot_game_length(engine: AnyEngine, seats: int, seed: int) -> int:
    """The events of a game of `engine`'s greedy bots (its first bot, without one)."""
    bot = engine.bots.get("greedy") or next(iter(engine.bots.values()))
    rng = random.Random(seed)
    infos = [SeatInfo()] * seats
    state = fold(engine, events := engine.setup(engine.resolve_options(engine.options_type(), infos), infos, rng))
    count = len(events)
    while not engine.status(state).finished:
        assert count < engine.default_event_limit, f"{engine.kind}: a bots' game ran into its event limit"
        made = engine.decide(
            state, engine.status(state).to_act[0], bot(state, engine.status(state).to_act[0], rng), rng
        )
        state, count = fold(engine, made, state), count + len(made)
    return count


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_every_kind_has_a_limit_well_above_its_games(kind: str) -> None:
    """Bots' games end far below the default event limit: five times over, at the fewest
    and the most seats (scripts/game_lengths.py measures more: Pirates' greedy bots end
    within 1,311 events of 10,000)."""
    engine = EVERY_ENGINE[kind]
    longest = max(
        _bot_game_length(engine, seats, seed) for seats in {engine.min_seats, engine.max_seats} for seed in range(3)
    )
    assert engine.default_event_limit >= 5 * longest


@async_test
async def test_an_all_bot_game_stops_at_its_event_limit_and_its_log_still_verifies() -> None:
    app = new_app(event_limits={"pirates": 300})
    game = (await app.games.create_game(bots_request("pirates", 2), ADMIN)).game
    assert game.status == game_pb2.GAME_STATUS_FINISHED
    assert list(game.outcome.winners) == [] and "stopped after 300 events" in game.outcome.summary
    assert 300 < game.version <= 310  # the last move's events, then the stop
    assert game.view.pirates.stopped.event_limit == 300
    log = await admin_log(app, game.game_id)
    last = log.events[-1]
    assert last.pirates.game_stopped.event_limit == 300 and last.game_over
    assert not last.HasField("seat") and not last.HasField("command")
    assert isinstance(verify(log), Replayed)


@async_test
async def test_the_move_that_reaches_the_limit_stops_the_game_and_no_move_follows() -> None:
    app = new_app(event_limits={"mooki": 4})
    created = await app.games.create_game(create_request(), "")
    cleo, robin = created.seat_tokens
    game_id = created.game_id
    await app.moves.submit(submit(game_id, DRAW_LEFT, "1"), cleo)
    await app.moves.submit(submit(game_id, PLACE_SHOWN, "2"), cleo)  # version 3
    reached = await app.moves.submit(submit(game_id, DRAW_LEFT, "3"), robin)  # version 4: the limit
    assert reached.status == game_pb2.GAME_STATUS_FINISHED and reached.version == 5
    assert reached.events[-1].mooki.game_stopped.event_limit == 4
    assert reached.outcome.summary.startswith("The game was stopped after 4 events")
    said = reached.events[-1].description  # described as every event, in the caller's language
    assert said.key == "mooki.event.game_stopped" and said.args["count"].value == "4"
    assert said.text == "The game was stopped after 4 events, the most a game may have here: nobody wins."
    request = submit(game_id, DRAW_LEFT, "3")  # the same move again: its first answer, in French
    request.locale = "fr"
    (replayed,) = [e for e in (await app.moves.submit(request, robin)).events if e.HasField("mooki") and e.version == 5]
    assert replayed.description.text.startswith("La partie a été arrêtée après 4 événements")
    refused = await expect_error(Code.FAILED_PRECONDITION, app.moves.submit(submit(game_id, PLACE_SHOWN, "4"), robin))
    assert "over" in refused.message
    seen = await app.games.get_game(api.GetGameRequest(game_id=game_id), cleo)
    assert seen.view.mooki.phase == mooki.PHASE_FINISHED
    assert seen.view.mooki.stopped.event_limit == 4 and list(seen.legal_commands) == []


@async_test
async def test_a_log_stopped_before_its_limit_is_refused() -> None:
    app = new_app(event_limits={"pirates": 300})
    game = (await app.games.create_game(bots_request("pirates", 2), ADMIN)).game
    log = await admin_log(app, game.game_id)
    log.events[-1].pirates.game_stopped.event_limit = game.version  # more events than the game had
    problem = verify(log)
    assert isinstance(problem, Problem) and problem.index == len(log.events) - 1
    assert "limit" in problem.reason


@async_test
async def test_an_import_longer_than_this_servers_limit_is_stopped_at_once() -> None:
    source = new_app()
    created = await source.games.create_game(bots_request("picnic", 2, "greedy"), ADMIN)
    log = await admin_log(source, created.game_id)
    cut = next(e.version - 1 for e in log.events if e.HasField("command") and e.version > 25)  # a fork at move 25+
    imported = await new_app(event_limits={"picnic": 20}).logs.import_game(
        api.ImportGameRequest(log=log, truncate_at=cut), ADMIN
    )
    assert imported.game.version == cut + 1
    assert imported.game.status == game_pb2.GAME_STATUS_FINISHED
    assert imported.game.view.picnic.stopped.event_limit == 20


@async_test
async def test_a_long_chain_of_bot_moves_lets_other_requests_in() -> None:
    app = new_app()
    other = await app.games.create_game(create_request(), "")
    # Two random Pirates take thousands of moves (a few hundred milliseconds of play):
    # other games' reads must be answered meanwhile, not after.
    creating = asyncio.create_task(app.games.create_game(bots_request("pirates", 2), ADMIN))
    # The gaps between two reads in this process's CPU time: what the chain ran meanwhile,
    # however little of the machine other processes left it.
    gaps: list[float] = []
    last = time.process_time()
    while not creating.done():
        await app.games.get_game(api.GetGameRequest(game_id=other.game_id), "")
        await asyncio.sleep(0)
        now = time.process_time()
        gaps.append(now - last)
        last = now
    created = creating.result().game
    assert created.version > 1000, "a long chain, or the test proves nothing"
    assert len(gaps) >= 20, f"only {len(gaps)} reads while {created.version} events were played"
    assert statistics.median(gaps) < 0.02


def test_the_limits_are_configured_per_kind() -> None:
    def limits(text: str) -> dict[str, int]:
        return dict(
            from_arguments(build_parser().parse_args(["serve", "--max-game-events", text]), {}).app.event_limits
        )

    assert limits("pirates=20000, picnic=5") == {"pirates": 20000, "picnic": 5}
    assert limits("") == {}
    for bad in ("chess=5", "pirates=0", "pirates=²", "pirates", "pirates=-3"):
        with pytest.raises(SystemExit):
            limits(bad)


@async_test
async def test_a_game_takes_so_many_spectators_and_a_stream_that_ends_frees_its_place() -> None:
    app = new_app(max_followers=2)
    created = await app.games.create_game(create_request(), "")
    request = api.StreamEventsRequest(game_id=created.game_id)
    streams = [(await app.history.stream_events(request, "")).events for _ in range(2)]
    for stream in streams:
        assert (await anext(stream)).version == 1
    await expect_error(Code.RESOURCE_EXHAUSTED, app.history.stream_events(request, ""))
    seat = (await app.history.stream_events(request, created.seat_tokens[1])).events  # the players always
    assert (await anext(seat)).version == 1
    await streams[0].aclose()  # type: ignore[attr-defined]
    third = (await app.history.stream_events(request, "")).events
    assert (await anext(third)).version == 1


@async_test
async def test_a_client_address_follows_so_many_games_at_once_and_others_are_still_served() -> None:
    app = new_app(max_client_followers=2)
    games = [await app.games.create_game(create_request(), "") for _ in range(3)]
    here, there = Origin("192.0.2.7"), Origin("2001:db8::1")

    async def follow(game: api.CreateGameResponse, origin: Origin, token: str = "") -> AsyncIterator[game_pb2.Event]:
        with calling_from(origin):
            request = api.StreamEventsRequest(game_id=game.game_id)
            stream = (await app.history.stream_events(request, token)).events
            assert (await anext(stream)).version == 1  # it counts once it follows
            return stream

    mine = [await follow(games[0], here), await follow(games[1], here, games[1].seat_tokens[0])]
    with calling_from(here):  # on any game, as a spectator or a seat
        for game, token in ((games[2], ""), (games[2], games[2].seat_tokens[1])):
            request = api.StreamEventsRequest(game_id=game.game_id)
            refused = await expect_error(Code.RESOURCE_EXHAUSTED, app.history.stream_events(request, token))
            assert retry_after_seconds(refused.details) == 1 and "close one first" in refused.message
    await follow(games[2], there)  # another address is still served
    await follow(games[2], Origin("2001:db8::2"))  # (an IPv6 client is counted by its /64)
    await expect_error(Code.RESOURCE_EXHAUSTED, follow(games[2], Origin("2001:db8::3")))
    await follow(games[2], here, ADMIN)  # the admin is not counted
    await mine[0].aclose()  # type: ignore[attr-defined]
    await follow(games[2], here)  # a stream that ended frees its place
