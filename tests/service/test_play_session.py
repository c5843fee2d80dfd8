"""Play sessions in process (GameApp on the memory store): how a session ends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.auth import TokenAuthority
from service.app.play_session import play
from service.store.memory import MemoryStore
from tests.support.aio import async_test

SECRET = b"0123456789abcdef-play-session"
DEADLINE = 5.0  # seconds: far more than any of these sessions needs


async def new_game(app: GameApp) -> api.CreateGameResponse:
    seats = [game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(name="Robin")]
    return await app.create_game(api.CreateGameRequest(kind="mooki", seats=seats), "")


async def requests(*messages: api.PlayRequest) -> AsyncIterator[api.PlayRequest]:
    """A client that sends `messages` and then half-closes its side."""
    for message in messages:
        yield message


async def whole_session(app: GameApp, sent: Sequence[api.PlayRequest], token: str) -> list[api.PlayResponse]:
    """Every response of a session, which must end by itself once the client is done."""
    async with asyncio.timeout(DEADLINE):
        return [response async for response in play(app, requests(*sent), token)]


def join(game_id: str) -> api.PlayRequest:
    return api.PlayRequest(join=api.PlayJoin(game_id=game_id))


@async_test
async def test_a_session_ends_when_the_client_half_closes_right_after_joining() -> None:
    # The end marker is queued while the deal is still waiting to be sent: it must not
    # be lost when the messages ready at once are merged.
    app = GameApp(MemoryStore(), TokenAuthority(SECRET))
    created = await new_game(app)
    responses = await whole_session(app, [join(created.game_id)], created.seat_tokens[1])
    assert [event.version for response in responses for event in response.events] == [1]


@async_test
async def test_a_session_ends_after_the_result_of_the_last_command_sent() -> None:
    app = GameApp(MemoryStore(), TokenAuthority(SECRET))
    created = await new_game(app)
    draw = api.PlayCommand(command=game_pb2.Command(mooki=mooki.Command(draw=mooki.Draw(pile=0))), command_id="d")
    responses = await whole_session(
        app, [join(created.game_id), api.PlayRequest(command=draw)], created.seat_tokens[0]
    )
    results = [response.result for response in responses if response.HasField("result")]
    assert [(result.command_id, result.version) for result in results] == [("d", 2)]
    assert [event.version for response in responses for event in response.events] == [1, 2]
