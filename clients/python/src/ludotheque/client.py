"""A small synchronous client for the Ludothèque GameService (its asyncio twin is
`ludotheque.aio.Client`: the same calls, awaited).

    from ludotheque import Client
    from ludotheque.mooki.v1 import mooki_pb2 as mooki

    lobby = Client("localhost:50051")
    created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"}])
    cleo = lobby.with_token(created.seat_tokens[0])
    result = cleo.submit(created.game_id, mooki.Command(draw=mooki.Draw(pile=1)))

Commands may be given as a game's own Command (it is wrapped in the envelope for you)
or as the envelope `ludotheque.v1.Command`. Every submit carries a command id (a new
UUID unless you pass one), and a call that fails with UNAVAILABLE is retried with the
same id, so a move is never played twice. The calls themselves are written once for
both clients, in ludotheque/calls.py.

The client remembers the highest version of each game it was given (`known`, shared by
the clients `with_token` makes) and says so on every call about that game and in the
Play join (`known_version`): a server whose store lost versions you were shown then
records the loss instead of giving their numbers to other moves (docs/DURABILITY.md).

Playing online: leave seats open for players to join, with a turn clock:

    created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"open": True}], clock={"turn_seconds": 60})
    joined = lobby.join_game(created.game.join_code, "Robin", age=8)   # on Robin's device
    robin = lobby.with_token(joined.seat_token)
"""

from __future__ import annotations

import queue
import time
import uuid
from collections.abc import Generator, Iterator
from typing import Any

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from ludotheque.calls import Blocking, Calls, SeatLike, envelope, metadata, should_retry
from ludotheque.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

__all__ = [
    "Client",
    "PlaySession",
    "SeatLike",
    "error_status",
    "localized_message",
    "request_info",
    "retry_delay",
    "rule_code",
]

_STATUS_DETAILS_KEY = "grpc-status-details-bin"


class Client(Calls, Blocking):
    """One caller of the service over a gRPC channel: a seat (its token), the admin
    (the admin token) or a spectator (no token). Its calls (create_game, get_game,
    submit...) are ludotheque/calls.py's; `stream`, `history` and `play` here."""

    def __init__(
        self,
        target: str,
        token: str | None = None,
        *,
        channel: grpc.Channel | None = None,
        timeout: float = 10.0,
        retries: int = 3,
        locale: str | None = None,
        known: dict[str, int] | None = None,
    ) -> None:
        self.target = target
        # The highest version of each game this client (and those with_token made) was given.
        self.known = known if known is not None else {}
        self.token = token
        # The language of descriptions and error messages ("fr", "fr-CA", or an
        # Accept-Language list), sent as `accept-language` metadata; None: English.
        self.locale = locale
        self.timeout = timeout
        self.retries = retries
        self._owns_channel = channel is None
        self.channel = channel if channel is not None else grpc.insecure_channel(target)
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)

    def with_token(self, token: str | None) -> Client:
        """A client acting with `token` (a seat token, the admin token, or None for a
        spectator) over the same connection."""
        return Client(
            self.target,
            token,
            channel=self.channel,
            timeout=self.timeout,
            retries=self.retries,
            locale=self.locale,
            known=self.known,
        )

    def close(self) -> None:
        if self._owns_channel:
            self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _metadata(self) -> tuple[tuple[str, str], ...]:
        return metadata(self.token, self.locale)

    def _unary(self, rpc: str, request: Message, *, retry: bool) -> Any:
        method = getattr(self.stub, rpc)
        for attempt in range(self.retries + 1):
            try:
                return method(request, metadata=self._metadata, timeout=self.timeout)
            except grpc.RpcError as error:
                delay = should_retry(error, attempt, self.retries) if retry else None
                if delay is None:
                    raise
                time.sleep(delay)
        raise AssertionError("unreachable")

    # --- streams -------------------------------------------------------------------

    def stream(self, game_id: str, from_version: int = 1) -> Generator[game_pb2.Event, None, None]:
        """Events from `from_version`, then live ones; ends after a finished game's
        last event. Cancel by closing the iterator."""
        request = self.saying_known(game_service_pb2.StreamEventsRequest(game_id=game_id, from_version=from_version))
        call = self.stub.StreamEvents(request, metadata=self._metadata)
        try:
            for message in call:
                self.saw(game_id, message.event.version, message.receipt)
                yield message.event
        finally:
            call.cancel()  # the caller stopped reading: end the call on the server too

    def history(self, game_id: str, from_version: int = 1) -> list[game_pb2.Event]:
        """Every event from `from_version` to the latest, as this client may see them,
        however many pages that takes."""
        events: list[game_pb2.Event] = []
        while from_version:
            page = self.list_events(game_id, from_version=from_version)
            events.extend(page.events)
            from_version = page.next_from_version
        return events

    def play(
        self,
        game_id: str,
        from_version: int = 1,
        *,
        views: bool = False,
        view_updates: bool = False,
        presence: bool = False,
    ) -> PlaySession:
        """A Play session for this client's seat on one stream: iterate over it for
        events, turns and results (it ends with the game); send() commands. `views`:
        the seat's view with each turn; `view_updates`: the view in every message where
        the game comes to rest; `presence`: also receive who is connected, and a
        finished game's rematch (the session then lasts until you close it)."""
        return PlaySession(self, game_id, from_version, views, view_updates, presence)


class PlaySession:
    """One seat's Play session: `for message in session` yields PlayResponses, each
    read as its events, then a command's result, then a turn with the seat's legal
    commands (any may be absent); `send(command)` plays a move. The iteration ends
    once the game is over and every move sent has its result (unless the session
    follows presence, to hear of a rematch). Close it (or use `with`) to end it sooner."""

    def __init__(
        self,
        client: Client,
        game_id: str,
        from_version: int,
        views: bool,
        view_updates: bool = False,
        presence: bool = False,
    ) -> None:
        self._requests: queue.SimpleQueue[game_service_pb2.PlayRequest | None] = queue.SimpleQueue()
        self._client, self._game_id = client, game_id
        join = game_service_pb2.PlayJoin(
            game_id=game_id,
            from_version=from_version,
            views=views,
            view_updates=view_updates,
            presence=presence,
        )
        client.saying_known(join)
        self._requests.put(game_service_pb2.PlayRequest(join=join))
        self._call = client.stub.Play(self._outgoing(), metadata=client._metadata)
        self._ending = GameEnd(presence)

    def _outgoing(self) -> Iterator[game_service_pb2.PlayRequest]:
        while (request := self._requests.get()) is not None:
            yield request

    def send(self, command: Message, *, command_id: str | None = None, expected_version: int | None = None) -> str:
        """Sends a move; returns its command id (its result will carry it)."""
        request = play_command(command, command_id, expected_version)
        self._ending.sent(request.command.command_id)
        self._requests.put(request)
        return request.command.command_id

    def __iter__(self) -> Iterator[game_service_pb2.PlayResponse]:
        return self

    def __next__(self) -> game_service_pb2.PlayResponse:
        message: game_service_pb2.PlayResponse = next(self._call)
        self._client.saw_play(self._game_id, message)
        if self._ending.received(message):
            self.finish()  # the server then ends the stream: the iteration stops
        return message

    def finish(self) -> None:
        """Sends nothing more (a half-close): the session then ends by itself once the
        results of the commands sent have come, and iterating over it stops."""
        if not self._ending.finished:
            self._ending.finished = True
            self._requests.put(None)

    def close(self) -> None:
        self.finish()
        self._call.cancel()

    def __enter__(self) -> PlaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GameEnd:
    """When a Play session has nothing more to wait for: the game is over, every move
    sent has its result, and it does not wait for a rematch (presence)."""

    def __init__(self, presence: bool) -> None:
        self.presence = presence
        self.over = False
        self.waiting: set[str] = set()
        self.finished = False  # the client half-closed

    def sent(self, command_id: str) -> None:
        self.waiting.add(command_id)

    def received(self, message: game_service_pb2.PlayResponse) -> bool:
        """Whether the session may end after `message`."""
        if any(event.game_over for event in message.events):
            self.over = True
        if message.HasField("result"):
            self.waiting.discard(message.result.command_id)
        return self.over and not self.waiting and not self.presence and not self.finished


def play_command(
    command: Message, command_id: str | None = None, expected_version: int | None = None
) -> game_service_pb2.PlayRequest:
    """A Play session's move, with its command id (a new UUID unless given)."""
    message = game_service_pb2.PlayCommand(
        command=envelope(game_pb2.Command, command), command_id=command_id or uuid.uuid4().hex
    )
    if expected_version is not None:
        message.expected_version = expected_version
    return game_service_pb2.PlayRequest(command=message)


def error_status(error: grpc.RpcError) -> status_pb2.Status | None:
    """The google.rpc.Status (with details) a failed call carries, if any."""
    for key, value in error.trailing_metadata() or ():
        if key == _STATUS_DETAILS_KEY:
            return status_pb2.Status.FromString(value)
    return None


def retry_delay(error: grpc.RpcError) -> float | None:
    """Seconds to wait before trying again (a RESOURCE_EXHAUSTED's RetryInfo), if said."""
    status = error_status(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return float(info.retry_delay.ToMilliseconds()) / 1000
    return None


def rule_code(error: grpc.RpcError) -> str | None:
    """The rule an illegal move broke (e.g. "not_your_turn"), from the error's details."""
    status = error_status(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
            failure = error_details_pb2.PreconditionFailure()
            detail.Unpack(failure)
            for violation in failure.violations:
                if violation.type == "RULE":
                    return str(violation.subject)
    return None


def localized_message(error: grpc.RpcError) -> str | None:
    """The error's message for people, in the client's language (its LocalizedMessage
    detail); None when it carries none."""
    status = error_status(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.LocalizedMessage.DESCRIPTOR):
            localized = error_details_pb2.LocalizedMessage()
            detail.Unpack(localized)
            return str(localized.message)
    return None


def request_info(error: grpc.RpcError) -> error_details_pb2.RequestInfo | None:
    """Which request failed: its `request_id`, and `serving_data` `trace_id=<hex>` when it
    was traced. Quote both in a bug report: they lead to the server's logs and trace."""
    status = error_status(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.RequestInfo.DESCRIPTOR):
            info = error_details_pb2.RequestInfo()
            detail.Unpack(info)
            return info
    return None
