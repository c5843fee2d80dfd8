"""Which GameApp use case answers each RPC of GameService: the one table that every
transport (gRPC, REST) serves, so none of them names an RPC."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2, game_service_pb2

from service.app import GameApp
from service.app.model.errors import ServiceError
from service.app.play.play_session import play

SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]


@dataclass(frozen=True, slots=True)
class Responses:
    """What a server-streaming use case answers: the responses, and whether they are
    known to be none at all (so HTTP can say 204 and an EventSource stops retrying)."""

    stream: AsyncIterator[Message]
    known_empty: bool = False


# (request, bearer token) -> the response, or for a server-streaming RPC its Responses;
# a bidirectional RPC: (the requests, bearer token) -> the responses.
UseCase = Callable[[Any, str], Awaitable[Message]]
StreamUseCase = Callable[[Any, str], Awaitable[Responses]]
BidiUseCase = Callable[[AsyncIterator[Any], str], AsyncIterator[Message]]
AnyUseCase = UseCase | StreamUseCase | BidiUseCase  # which one: the method's streaming kind says


def use_cases(app: GameApp, catch_up_page: int = 0) -> dict[str, AnyUseCase]:
    """`catch_up_page`: a StreamEvents call ends after so many events of the game's past
    when more remain (0: never), for transports whose clients give no read receipt."""

    async def stream_events(request: game_service_pb2.StreamEventsRequest, token: str) -> Responses:
        events = await app.history.stream_events(request, token, catch_up_page)
        responses = _as_responses(events.events, functools.partial(app.receipt, request.game_id))
        return Responses(_in_language(responses, request.locale), events.ended)

    def play_session(requests: AsyncIterator[Any], token: str) -> AsyncIterator[Message]:
        return play(app, requests, token)

    table: dict[str, AnyUseCase] = {
        "CreateGame": app.games.create_game,
        "GetGame": app.games.get_game,
        "ListGames": app.games.list_games,
        "SubmitCommand": app.moves.submit,
        "GetHint": app.hints.get_hint,
        "StreamEvents": stream_events,
        "ListEvents": app.history.list_events,
        "ReplayGame": app.history.replay,
        "ExportGame": app.logs.export_game,
        "ImportGame": app.logs.import_game,
        "ReplayLog": app.log_replays.replay_log,
        "RotateSeatToken": app.seats.rotate_seat_token,
        "DeleteGame": app.retention.delete_game,
        "Play": play_session,
        "IssueStreamTicket": app.tickets.issue_stream_ticket,
        "GetGameKind": app.kinds.get_game_kind,
        "ListGameKinds": app.kinds.list_game_kinds,
        "JoinGame": app.seating.join_game,
        "LeaveGame": app.seating.leave_game,
        "StartGame": app.seating.start_game,
        "PlayAgain": app.seating.play_again,
        "QuickMatch": app.quick_matches.quick_match,
        "TakeOverSeat": app.takeovers.take_over,
        "HandBackSeat": app.takeovers.hand_back,
    }
    missing = {method.name for method in SERVICE.methods} - set(table)
    if missing:
        raise RuntimeError(f"no use case for {sorted(missing)}")
    return {
        name: use_case if SERVICE.methods_by_name[name].client_streaming else _speaking(app, use_case)
        for name, use_case in table.items()
    }


def _speaking(app: GameApp, use_case: Any) -> Any:
    """The use case, its errors told in the request's language (ServiceError.locale),
    with the caller's claim to know a version of the game (`known_version`, proven by
    `known_receipt`) heard, and the answer given the receipt of the version it tells."""

    async def call(request: Message, token: str) -> Any:
        try:
            game_id = getattr(request, "game_id", "")
            known, receipt = getattr(request, "known_version", 0), getattr(request, "known_receipt", "")
            with app.claiming(game_id, known, receipt):
                answer = await use_case(request, token)
            if isinstance(answer, Message):
                app.receipted(answer, game_id)
            return answer
        except ServiceError as error:
            error.locale = getattr(request, "locale", "")
            raise

    return call


async def _in_language(responses: AsyncIterator[Message], locale: str) -> AsyncIterator[Message]:
    """A stream whose error, if one ends it, is told in `locale`."""
    try:
        async for response in responses:
            yield response
    except ServiceError as error:
        error.locale = locale
        raise
    finally:
        await responses.aclose()  # type: ignore[attr-defined]


async def _as_responses(events: AsyncIterator[game_pb2.Event], receipt: Callable[[int], str]) -> AsyncIterator[Message]:
    # Each generator closes the one it reads when it is closed (a client that left):
    # at once, in this task, not later in one of the event loop's own.
    try:
        async for event in events:
            yield game_service_pb2.StreamEventsResponse(event=event, receipt=receipt(event.version))
    finally:
        await events.aclose()  # type: ignore[attr-defined]
