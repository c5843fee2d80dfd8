"""Play sessions in process (GameApp on the memory store): how a session ends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.model.errors import Code, ServiceError
from service.app.play.play_session import play
from tests.support.aio import async_test
from tests.support.apps import create_game, new_app

DEADLINE = 30.0  # seconds: far more than any of these sessions needs, on however busy a machine


async def requests(*messages: api.PlayRequest) -> AsyncIterator[api.PlayRequest]:
    """A client that sends `messages` and then half-closes its side."""
    for message in messages:
        yield message


async def whole_session(app: GameApp, sent: Sequence[api.PlayRequest], token: str) -> list[api.PlayResponse]:
    """Every response of a session, which must end by itself once the client is done."""
    async with asyncio.timeout(DEADLINE):
        return [response async for response in play(app, requests(*sent), token)]


def join(game_id: str, **fields: object) -> api.PlayRequest:
    return api.PlayRequest(join=api.PlayJoin(game_id=game_id, **fields))  # type: ignore[arg-type]


def command(action: mooki.Command, command_id: str) -> api.PlayRequest:
    return api.PlayRequest(command=api.PlayCommand(command=game_pb2.Command(mooki=action), command_id=command_id))


DRAW = mooki.Command(draw=mooki.Draw(pile=0))


@async_test
async def test_a_session_ends_when_the_client_half_closes_right_after_joining() -> None:
    # The end marker is queued while the deal is still waiting to be sent: it must not
    # be lost when the messages ready at once are merged.
    app = new_app()
    created = await create_game(app)
    responses = await whole_session(app, [join(created.game_id)], created.seat_tokens[1])
    assert [event.version for response in responses for event in response.events] == [1]


@async_test
async def test_a_session_ends_after_the_result_of_the_last_command_sent() -> None:
    app = new_app()
    created = await create_game(app)
    responses = await whole_session(app, [join(created.game_id), command(DRAW, "d")], created.seat_tokens[0])
    results = [response.result for response in responses if response.HasField("result")]
    assert [(result.command_id, result.version) for result in results] == [("d", 2)]
    assert [event.version for response in responses for event in response.events] == [1, 2]


@async_test
async def test_a_session_that_never_joins_ends_after_the_join_deadline() -> None:
    app = new_app(play_join_timeout=0.05)

    async def silent() -> AsyncIterator[api.PlayRequest]:
        await asyncio.Event().wait()  # a client that connects and says nothing
        yield api.PlayRequest()

    with pytest.raises(ServiceError) as ended:
        async with asyncio.timeout(DEADLINE):
            await anext(play(app, silent(), ""))
    assert ended.value.code is Code.DEADLINE_EXCEEDED and "join" in ended.value.message


@async_test
async def test_the_join_may_carry_the_token_but_not_another_one_than_the_header() -> None:
    app = new_app()
    created = await create_game(app)
    cleo, robin = created.seat_tokens
    responses = await whole_session(app, [join(created.game_id, token=cleo)], "")
    assert responses[-1].turn.version == 1  # Cléo's turn: the token made her the seat
    responses = await whole_session(app, [join(created.game_id, token=cleo)], cleo)  # the same twice: fine
    assert responses[-1].HasField("turn")
    with pytest.raises(ServiceError) as refused:
        await whole_session(app, [join(created.game_id, token=cleo)], robin)
    assert refused.value.code is Code.INVALID_ARGUMENT
    with pytest.raises(ServiceError) as refused:
        await whole_session(app, [join(created.game_id, token="0.forged")], "")
    assert refused.value.code is Code.UNAUTHENTICATED


@async_test
async def test_view_updates_bring_the_view_whenever_the_game_rests_to_spectators_too() -> None:
    app = new_app()
    created = await create_game(app)
    cleo = created.seat_tokens[0]
    await whole_session(app, [join(created.game_id), command(DRAW, "d")], cleo)
    spectator = await whole_session(app, [join(created.game_id, view_updates=True)], "")
    assert [response.HasField("view") for response in spectator] == [True]  # once, after both events
    assert spectator[0].view.mooki.drawn.HasField("shown") and not spectator[0].view.mooki.drawn.HasField("hidden")
    seat = await whole_session(app, [join(created.game_id, view_updates=True, views=True)], cleo)
    assert seat[-1].view.mooki.drawn.HasField("hidden")  # her own card, both faces
    assert seat[-1].turn.view == seat[-1].view


@async_test
async def test_a_session_resumed_at_the_end_gets_its_turn_at_once() -> None:
    app = new_app()
    created = await create_game(app)
    cleo, robin = created.seat_tokens
    resumed = await whole_session(app, [join(created.game_id, from_version=2)], cleo)
    assert [(len(r.events), r.turn.version) for r in resumed] == [(0, 1)]  # nothing new, and her turn
    assert await whole_session(app, [join(created.game_id, from_version=2)], robin) == []  # not his turn


class Client:
    """A seat's client that sends its join, then what it is told to, until told to stop (None)."""

    def __init__(self, app: GameApp, game_id: str, token: str) -> None:
        self.outgoing: asyncio.Queue[api.PlayRequest | None] = asyncio.Queue()
        self.responses = aiter(play(app, self._sent(game_id), token))

    async def _sent(self, game_id: str) -> AsyncIterator[api.PlayRequest]:
        yield join(game_id)
        while (message := await self.outgoing.get()) is not None:
            yield message

    async def next(self) -> api.PlayResponse:
        async with asyncio.timeout(DEADLINE):
            return await anext(self.responses)

    async def rest(self) -> list[api.PlayResponse]:
        """Stops sending; what the session still sends before it ends."""
        self.outgoing.put_nowait(None)
        async with asyncio.timeout(DEADLINE):
            return [response async for response in self.responses]


@async_test
async def test_a_move_costs_its_mover_one_message_and_every_other_seat_one() -> None:
    app = new_app()
    created = await create_game(app)
    cleo, robin = (Client(app, created.game_id, token) for token in created.seat_tokens)
    dealt = await cleo.next()
    assert dealt.events and dealt.turn.legal_commands  # the deal and her turn, together
    assert (await robin.next()).events  # the deal
    cleo.outgoing.put_nowait(command(DRAW, "drawn"))
    moved = await cleo.next()  # its event, its result and her next turn (placing the card), at once
    assert [len(moved.events), moved.result.command_id, moved.turn.version] == [1, "drawn", dealt.turn.version + 1]
    told = await robin.next()
    assert len(told.events) == 1 and not told.HasField("result") and not told.HasField("turn")
    assert await robin.rest() == [] and await cleo.rest() == []  # nothing else was sent for the move
