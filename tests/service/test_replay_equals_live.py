"""Replay equals live, at the service level, for every game kind and store: random
games played through GameApp (bots included), and after every move the cached live
game's views (every seat's and the spectator's) and legal moves are those a cold
replay from the store gives (a second GameApp with nothing cached), and ReplayGame at
each earlier version shows what was live then."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from google.protobuf.message import Message
from ludotheque.pirates.v1 import pirates_pb2 as pirates
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.registry import GAMES
from service.app import GameApp
from tests.support.aio import async_test
from tests.support.apps import ADMIN, new_app
from tests.support.kinds import SERVED_KINDS, varied_options, with_short
from tests.support.stores import StoreFactory, memory_store, redis_store_factory

NAMES = ("Ana", "Ben", "Cléo")


def _games(kind: str) -> list[tuple[Message, list[game_pb2.SeatSpec]]]:
    """Per kind, from its registration: two games kept short (engines/<kind>/proof.py),
    one at the fewest seats with a greedy bot in the last, one of up to three seats
    with a random bot in the third; each with options whose moves are varied."""
    engine, varied = GAMES[kind].engine, varied_options(kind)
    fewest = max(engine.min_seats, min(2, engine.max_seats))
    more = min(engine.max_seats, max(engine.min_seats, 3))
    games = []
    for number, (count, bot) in enumerate(((fewest, "greedy"), (more, "random"))):
        seats = [game_pb2.SeatSpec(name=NAMES[i], age=6 + 16 * i) for i in range(count)]
        if count >= 2 + number:  # a human seat or two besides the bot
            seats[-1] = game_pb2.SeatSpec(name="Bot", bot=bot)
        games.append((with_short(kind, varied[number % len(varied)]), seats))
    return games


GAMES_PLAYED = {kind: _games(kind) for kind in SERVED_KINDS}


@pytest.fixture(params=["memory", "redis"])
def stores(request: pytest.FixtureRequest) -> StoreFactory:
    """A fresh store: in memory, or on a real Redis (with a key prefix of its own)."""
    if request.param == "memory":
        return memory_store
    return redis_store_factory(request.getfixturevalue("redis_server").url)


async def _choose(app: GameApp, game_id: str, seat: int, legal: list[game_pb2.Command], rng: random.Random) -> Any:
    """A legal move, as the kind's random test player picks (its registration's: a
    Pirates player lays a card three times out of four, a uniformly random one draws so
    often that a round drags), else any."""
    kind = str(legal[0].WhichOneof("game"))
    player = GAMES[kind].proof.player
    if player is None:
        return rng.choice(legal)
    payloads = [getattr(command, kind) for command in legal]
    chosen = player((await app.live.load(game_id)).state, seat, payloads, rng)
    return legal[payloads.index(chosen)]


async def _seen(app: GameApp, game_id: str, tokens: list[str]) -> list[tuple[Any, ...]]:
    """What every seat and the spectator are shown: status, version, view, moves."""
    seen = []
    for token in [*tokens, ""]:
        game = await app.games.get_game(api.GetGameRequest(game_id=game_id), token)
        seen.append((game.status, game.version, list(game.to_act), game.view, list(game.legal_commands)))
    return seen


@pytest.mark.parametrize("kind", sorted(GAMES_PLAYED))
@async_test
async def test_the_live_game_is_what_a_cold_replay_from_the_store_gives(kind: str, stores: StoreFactory) -> None:
    for number, (options, seats) in enumerate(GAMES_PLAYED[kind]):
        async with stores() as store:
            live_app = new_app(store, seed=100 + number)
            request = api.CreateGameRequest(kind=kind, seats=seats)
            getattr(request.options, kind).CopyFrom(options)
            created = await live_app.games.create_game(request, ADMIN)
            game_id, tokens = created.game_id, list(created.seat_tokens)
            humans = [seat for seat, spec in enumerate(seats) if not spec.bot]
            rng = random.Random(number)
            history: dict[int, list[Any]] = {}  # version -> each viewer's live view then
            for move in itertools.count():
                live = await _seen(live_app, game_id, tokens)
                cold = await _seen(new_app(store, seed=0), game_id, tokens)  # nothing cached: rebuilt from the store
                assert live == cold, f"{kind} game {number}, after {move} moves: the live game and its replay differ"
                version = live[0][1]
                history[version] = [view for _, _, _, view, _ in live]
                if live[0][0] == game_pb2.GAME_STATUS_FINISHED:
                    break
                assert move < 3000, "the game should have ended"
                seat = live[0][2][0]
                assert seat in humans, "the bots play inside the humans' moves"
                command = await _choose(live_app, game_id, seat, live[seat][4], rng)
                await live_app.moves.submit(
                    api.SubmitCommandRequest(game_id=game_id, command=command, command_id=f"m{move}"), tokens[seat]
                )
            for version, views in history.items():  # time travel shows what was live then
                for token, view in zip([*tokens, ""], views, strict=True):
                    past = await live_app.history.replay(
                        api.ReplayGameRequest(game_id=game_id, at_version=version), token
                    )
                    assert past.view == view, f"{kind} game {number}: ReplayGame at {version} differs"


@async_test
async def test_an_online_game_live_is_its_cold_replay_table_events_and_all(stores: StoreFactory) -> None:
    """Players join open seats, the host deals with a bot in the last one, a player lets
    a bot take her seat over and takes it back: every viewer's live game is what a cold
    replay gives, and ReplayGame shows each earlier version (the wait for players too)."""
    async with stores() as store:
        live_app = new_app(store, seed=7)
        seats = [game_pb2.SeatSpec(name="Ana"), game_pb2.SeatSpec(open=True), game_pb2.SeatSpec(open=True)]
        request = api.CreateGameRequest(kind="pirates", seats=seats)
        request.options.pirates.CopyFrom(pirates.Options(island_distance=1))
        created = await live_app.games.create_game(request, ADMIN)
        game_id = created.game_id
        ben = await live_app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Ben"), "")
        tokens = [created.seat_tokens[0], ben.seat_token, ""]
        history: dict[int, list[Any]] = {0: [(game_pb2.GAME_STATUS_OPEN, None)] * 4}
        await live_app.seating.start_game(api.StartGameRequest(game_id=game_id, bot="random"), created.host_token)
        rng = random.Random(3)
        for move in itertools.count():
            live = await _seen(live_app, game_id, tokens)
            assert live == await _seen(new_app(store, seed=0), game_id, tokens), f"after {move} moves"
            history[live[0][1]] = [(status, view) for status, _, _, view, _ in live]
            if live[0][0] == game_pb2.GAME_STATUS_FINISHED:
                break
            assert move < 3000, "the game should have ended"
            seat = live[0][2][0]
            if move == 5:  # Ana away for a while: a bot plays her seat, then she is back
                await live_app.takeovers.take_over(api.TakeOverSeatRequest(game_id=game_id), tokens[0])
                await live_app.takeovers.hand_back(api.HandBackSeatRequest(game_id=game_id), tokens[0])
                continue
            command = await _choose(live_app, game_id, seat, live[seat][4], rng)
            await live_app.moves.submit(api.SubmitCommandRequest(game_id=game_id, command=command), tokens[seat])
        changes = [
            e.table.WhichOneof("change")
            for e in (await live_app.history.list_events(api.ListEventsRequest(game_id=game_id), ADMIN)).events
            if e.HasField("table")
        ]
        assert changes[:4] == ["joined", "joined", "taken_over", "handed_back"]
        for version, shown in history.items():
            for token, (status, view) in zip([*tokens, ""], shown, strict=True):
                past = await live_app.history.replay(api.ReplayGameRequest(game_id=game_id, at_version=version), token)
                assert past.status == status, f"ReplayGame at {version}: status"
                if view is not None:
                    assert past.view == view, f"ReplayGame at {version} differs"
