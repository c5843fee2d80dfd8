"""Every request about one game opens it the same way (service/app/access/kit.py,
`UseCase._open`), whichever use case answers it: a game that does not exist is NOT_FOUND,
a token of another game is UNAUTHENTICATED, and a seat's own token is its seat's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.model.errors import Code
from tests.support.aio import async_test
from tests.support.apps import create_game, new_app
from tests.support.refusals import expect_error

Opening = Callable[[GameApp, str, str], Awaitable[Any]]

# Each use case whose request opens one game by its id, for a caller's token.
OPENINGS: dict[str, Opening] = {
    "GetGame": lambda app, game, token: app.games.get_game(api.GetGameRequest(game_id=game), token),
    "ListEvents": lambda app, game, token: app.history.list_events(api.ListEventsRequest(game_id=game), token),
    "ReplayGame": lambda app, game, token: app.history.replay(api.ReplayGameRequest(game_id=game), token),
    "ExportGame": lambda app, game, token: app.logs.export_game(api.ExportGameRequest(game_id=game), token),
    "LeaveGame": lambda app, game, token: app.seating.leave_game(api.LeaveGameRequest(game_id=game), token),
    "PlayAgain": lambda app, game, token: app.seating.play_again(api.PlayAgainRequest(game_id=game), token),
    "TakeOverSeat": lambda app, game, token: app.takeovers.take_over(api.TakeOverSeatRequest(game_id=game), token),
    "HandBackSeat": lambda app, game, token: app.takeovers.hand_back(api.HandBackSeatRequest(game_id=game), token),
    "IssueStreamTicket": lambda app, game, token: app.tickets.issue_stream_ticket(
        api.IssueStreamTicketRequest(game_id=game), token
    ),
    "Play": lambda app, game, token: app.open_game(game, token),
}


@pytest.mark.parametrize("rpc", sorted(OPENINGS))
@async_test
async def test_a_game_is_opened_for_its_caller_alike_by_every_use_case(rpc: str) -> None:
    app = new_app()
    ours, theirs = await create_game(app), await create_game(app)
    opening = OPENINGS[rpc]
    await expect_error(Code.NOT_FOUND, opening(app, "no-such-game", ours.seat_tokens[0]))
    await expect_error(Code.UNAUTHENTICATED, opening(app, ours.game_id, theirs.seat_tokens[0]))
    await expect_error(Code.UNAUTHENTICATED, opening(app, ours.game_id, "not-a-token"))
    live, viewer = await app.kit.open(ours.game_id, ours.seat_tokens[1])
    assert (live.game_id, viewer.seat) == (ours.game_id, 1)
