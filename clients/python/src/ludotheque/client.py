"""A small synchronous client for the Ludothèque GameService.

    from ludotheque import Client
    from ludotheque.mooki.v1 import mooki_pb2 as mooki

    lobby = Client("localhost:50051")
    created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"}])
    cleo = lobby.with_token(created.seat_tokens[0])
    result = cleo.submit(created.game_id, mooki.Command(draw=mooki.Draw(pile=1)))

Commands may be given as a game's own Command (it is wrapped in the envelope for you)
or as the envelope `ludotheque.v1.Command`. Every submit carries a command id (a new
UUID unless you pass one), and a call that fails with UNAVAILABLE is retried with the
same id, so a move is never played twice.

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
from collections.abc import Generator, Iterator, Mapping, Sequence
from typing import Any

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from ludotheque.v1 import game_kind_pb2, game_pb2, game_service_pb2, game_service_pb2_grpc

SeatLike = game_pb2.SeatSpec | Mapping[str, Any] | str

_STATUS_DETAILS_KEY = "grpc-status-details-bin"


class Client:
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
        self.known: dict[str, int] = known if known is not None else {}
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

    def saw(self, game_id: str, version: int) -> int:
        """Notes that the game was at `version` (or later) as a server told it; returns it."""
        if version > self.known.get(game_id, 0):
            self.known[game_id] = version
        return version

    def _saw_game(self, game: game_pb2.Game) -> game_pb2.Game:
        self.saw(game.game_id, game.version)
        return game

    @property
    def _metadata(self) -> tuple[tuple[str, str], ...]:
        metadata = (("authorization", f"Bearer {self.token}"),) if self.token else ()
        return (*metadata, ("accept-language", self.locale)) if self.locale else metadata

    # --- calls -------------------------------------------------------------------

    def create_game(
        self,
        kind: str,
        seats: Sequence[SeatLike],
        options: Message | None = None,
        *,
        visibility: game_pb2.Visibility.ValueType = game_pb2.VISIBILITY_UNSPECIFIED,
        clock: game_pb2.TurnClock | Mapping[str, int] | None = None,
    ) -> game_service_pb2.CreateGameResponse:
        """Creates a game. Seats: SeatSpec messages, dicts like {"name": "Cléo",
        "age": 6}, {"name": "Bot", "bot": "greedy"} or {"open": True} (a player joins
        it: join_game), or plain names. Unlisted unless `visibility` says otherwise.
        `clock`: a TurnClock or a dict like {"turn_seconds": 60, "bank_seconds": 300,
        "take_over_after": 3}."""
        request = game_service_pb2.CreateGameRequest(kind=kind, seats=[_seat(s) for s in seats], visibility=visibility)
        if options is not None:
            request.options.CopyFrom(_envelope(game_pb2.GameOptions, options))
        if clock is not None:
            request.clock.CopyFrom(clock if isinstance(clock, game_pb2.TurnClock) else game_pb2.TurnClock(**clock))
        created: game_service_pb2.CreateGameResponse = self.stub.CreateGame(
            request, metadata=self._metadata, timeout=self.timeout
        )
        self._saw_game(created.game)
        return created

    def join_game(
        self,
        game_id_or_code: str,
        name: str,
        *,
        age: int | None = None,
        seat: int | None = None,
        stand_in: str = "",
    ) -> game_service_pb2.JoinGameResponse:
        """Takes an open seat of a game, by its id or its join code; the response holds
        the seat's token (use it with with_token)."""
        request = game_service_pb2.JoinGameRequest(game_id=game_id_or_code, name=name, stand_in=stand_in)
        if age is not None:
            request.age = age
        if seat is not None:
            request.seat = seat
        return self.stub.JoinGame(request, metadata=self._metadata, timeout=self.timeout)  # type: ignore[no-any-return]

    def leave_game(self, game_id: str) -> game_pb2.Game:
        """Leaves this client's seat before the game starts (its token then stops working)."""
        request = game_service_pb2.LeaveGameRequest(game_id=game_id)
        return self._saw_game(self.stub.LeaveGame(request, metadata=self._metadata, timeout=self.timeout).game)

    def start_game(self, game_id: str, bot: str = "") -> game_pb2.Game:
        """The host (a client with the host token) or the admin: deals the game now,
        with `bot` (default "greedy") in the seats nobody took."""
        request = game_service_pb2.StartGameRequest(game_id=game_id, bot=bot)
        return self._saw_game(self.stub.StartGame(request, metadata=self._metadata, timeout=self.timeout).game)

    def play_again(self, game_id: str) -> game_service_pb2.PlayAgainResponse:
        """The rematch of a finished game (the same for every player who asks), with
        this client's seat's token in it."""
        request = game_service_pb2.PlayAgainRequest(game_id=game_id)
        return self.stub.PlayAgain(request, metadata=self._metadata, timeout=self.timeout)  # type: ignore[no-any-return]

    def take_over(self, game_id: str, *, bot: str = "", seat: int | None = None) -> game_pb2.Game:
        """Lets a bot (default: the seat's stand-in) play this client's seat (admins:
        pass `seat`) until it is handed back."""
        request = game_service_pb2.TakeOverSeatRequest(game_id=game_id, bot=bot)
        if seat is not None:
            request.seat = seat
        return self._saw_game(self.stub.TakeOverSeat(request, metadata=self._metadata, timeout=self.timeout).game)

    def hand_back(self, game_id: str, *, seat: int | None = None) -> game_pb2.Game:
        """Plays this client's seat again after a bot took it over (admins: pass `seat`)."""
        request = game_service_pb2.HandBackSeatRequest(game_id=game_id)
        if seat is not None:
            request.seat = seat
        return self._saw_game(self.stub.HandBackSeat(request, metadata=self._metadata, timeout=self.timeout).game)

    def get_game(self, game_id: str) -> game_pb2.Game:
        request = game_service_pb2.GetGameRequest(game_id=game_id, known_version=self.known.get(game_id, 0))
        return self._saw_game(self.stub.GetGame(request, metadata=self._metadata, timeout=self.timeout))

    def list_games(
        self,
        kind: str = "",
        status: game_pb2.GameStatus.ValueType = game_pb2.GAME_STATUS_UNSPECIFIED,
        page_size: int = 0,
        page_token: str = "",
    ) -> game_service_pb2.ListGamesResponse:
        request = game_service_pb2.ListGamesRequest(
            kind=kind,
            status=status,
            page_size=page_size,
            page_token=page_token,
        )
        return self.stub.ListGames(request, metadata=self._metadata, timeout=self.timeout)  # type: ignore[no-any-return]

    def submit(
        self,
        game_id: str,
        command: Message,
        *,
        command_id: str | None = None,
        expected_version: int | None = None,
        seat: int | None = None,
    ) -> game_service_pb2.SubmitCommandResponse:
        """Plays a move for this client's seat (admins: pass `seat`)."""
        request = game_service_pb2.SubmitCommandRequest(
            game_id=game_id,
            command=_envelope(game_pb2.Command, command),
            command_id=command_id or uuid.uuid4().hex,
            known_version=self.known.get(game_id, 0),
        )
        if expected_version is not None:
            request.expected_version = expected_version
        if seat is not None:
            request.seat = seat
        for attempt in range(self.retries + 1):
            try:
                answer: game_service_pb2.SubmitCommandResponse = self.stub.SubmitCommand(
                    request, metadata=self._metadata, timeout=self.timeout
                )
                self.saw(game_id, answer.version)
                return answer
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == self.retries:
                    raise
                time.sleep(0.1 * 2**attempt)  # the same command id: at most once, whatever happened
        raise AssertionError("unreachable")

    def stream(self, game_id: str, from_version: int = 1) -> Generator[game_pb2.Event, None, None]:
        """Events from `from_version`, then live ones; ends after a finished game's
        last event. Cancel by closing the iterator."""
        request = game_service_pb2.StreamEventsRequest(
            game_id=game_id, from_version=from_version, known_version=self.known.get(game_id, 0)
        )
        call = self.stub.StreamEvents(request, metadata=self._metadata)
        try:
            for message in call:
                self.saw(game_id, message.event.version)
                yield message.event
        finally:
            call.cancel()  # the caller stopped reading: end the call on the server too

    def list_events(
        self, game_id: str, from_version: int = 1, to_version: int = 0, page_size: int = 0
    ) -> game_service_pb2.ListEventsResponse:
        request = game_service_pb2.ListEventsRequest(
            game_id=game_id,
            from_version=from_version,
            to_version=to_version,
            page_size=page_size,
            known_version=self.known.get(game_id, 0),
        )
        page: game_service_pb2.ListEventsResponse = self.stub.ListEvents(
            request, metadata=self._metadata, timeout=self.timeout
        )
        self.saw(game_id, page.version)
        return page

    def history(self, game_id: str, from_version: int = 1) -> list[game_pb2.Event]:
        """Every event from `from_version` to the latest, as this client may see them,
        however many pages that takes."""
        events: list[game_pb2.Event] = []
        while from_version:
            page = self.list_events(game_id, from_version=from_version)
            events.extend(page.events)
            from_version = page.next_from_version
        return events

    def replay(self, game_id: str, at_version: int | None = None) -> game_service_pb2.ReplayGameResponse:
        """The game as this client saw it at `at_version` (default: now)."""
        request = game_service_pb2.ReplayGameRequest(game_id=game_id, known_version=self.known.get(game_id, 0))
        if at_version is not None:
            request.at_version = at_version
        replayed: game_service_pb2.ReplayGameResponse = self.stub.ReplayGame(
            request, metadata=self._metadata, timeout=self.timeout
        )
        self.saw(game_id, replayed.version)
        return replayed

    def export_game(self, game_id: str, *, as_seat: int | None = None, as_spectator: bool = False) -> game_pb2.GameLog:
        """The game's log: complete with the admin token (and, for the admin, as a seat
        or a spectator saw it), else as this client's seat or a spectator saw it."""
        request = game_service_pb2.ExportGameRequest(game_id=game_id, as_spectator=as_spectator)
        if as_seat is not None:
            request.as_seat = as_seat
        response = self.stub.ExportGame(request, metadata=self._metadata, timeout=self.timeout)
        return response.log  # type: ignore[no-any-return]

    def import_game(self, log: game_pb2.GameLog, truncate_at: int | None = None) -> game_service_pb2.ImportGameResponse:
        """Admin: loads a complete log as a new game (cut at `truncate_at`)."""
        request = game_service_pb2.ImportGameRequest(log=log)
        if truncate_at is not None:
            request.truncate_at = truncate_at
        return self.stub.ImportGame(request, metadata=self._metadata, timeout=self.timeout)  # type: ignore[no-any-return]

    def replay_log(
        self,
        log: game_pb2.GameLog,
        *,
        from_version: int = 0,
        to_version: int | None = None,
        page_size: int = 0,
        as_seat: int | None = None,
        as_spectator: bool = False,
    ) -> game_service_pb2.ReplayLogResponse:
        """Has the server verify and replay a complete log, storing nothing: whether it
        is valid (else its first bad event, `problem`) and the views of a page of its
        versions, complete or as a seat or a spectator saw them."""
        request = game_service_pb2.ReplayLogRequest(
            log=log, from_version=from_version, page_size=page_size, as_spectator=as_spectator
        )
        if to_version is not None:
            request.to_version = to_version
        if as_seat is not None:
            request.as_seat = as_seat
        return self.stub.ReplayLog(request, metadata=self._metadata, timeout=self.timeout)  # type: ignore[no-any-return]

    def rotate_seat_token(self, game_id: str, seat: int) -> str:
        """Admin: the seat's new token; its previous ones stop working."""
        request = game_service_pb2.RotateSeatTokenRequest(game_id=game_id, seat=seat)
        response = self.stub.RotateSeatToken(request, metadata=self._metadata, timeout=self.timeout)
        return str(response.seat_token)

    def delete_game(self, game_id: str) -> None:
        """Admin: deletes a game and everything kept about it; its followers' streams end."""
        request = game_service_pb2.DeleteGameRequest(game_id=game_id)
        self.stub.DeleteGame(request, metadata=self._metadata, timeout=self.timeout)

    def issue_stream_ticket(self, game_id: str) -> game_service_pb2.IssueStreamTicketResponse:
        """A short-lived, single-use ticket standing for this client's seat in the game:
        `GET /v1/games/{game_id}/events:stream?ticket=...` then streams the seat's events
        without an authorization header (what a browser's EventSource needs)."""
        request = game_service_pb2.IssueStreamTicketRequest(game_id=game_id)
        return self.stub.IssueStreamTicket(request, metadata=self._metadata, timeout=self.timeout)  # type: ignore[no-any-return]

    def get_game_kind(self, kind: str) -> game_kind_pb2.GameKind:
        """What a renderer needs to know about a kind of game (names, options and
        presets, rule codes, material), in this client's language."""
        request = game_service_pb2.GetGameKindRequest(kind=kind)
        return self.stub.GetGameKind(request, metadata=self._metadata, timeout=self.timeout)  # type: ignore[no-any-return]

    def list_game_kinds(self) -> list[game_kind_pb2.GameKind]:
        """Every kind of game the server plays."""
        request = game_service_pb2.ListGameKindsRequest()
        response = self.stub.ListGameKinds(request, metadata=self._metadata, timeout=self.timeout)
        return list(response.kinds)

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
        events, turns and results; send() commands. `views`: the seat's view with each
        turn; `view_updates`: the view in every message where the game comes to rest;
        `presence`: also receive who is connected, and a finished game's rematch."""
        return PlaySession(self, game_id, from_version, views, view_updates, presence)


class PlaySession:
    """One seat's Play session: `for message in session` yields PlayResponses, each
    read as its events, then a command's result, then a turn with the seat's legal
    commands (any may be absent); `send(command)` plays a move. Close it (or use
    `with`) to end the session."""

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
            known_version=client.known.get(game_id, 0),
        )
        self._requests.put(game_service_pb2.PlayRequest(join=join))
        self._call = client.stub.Play(self._outgoing(), metadata=client._metadata)

    def _outgoing(self) -> Iterator[game_service_pb2.PlayRequest]:
        while (request := self._requests.get()) is not None:
            yield request

    def send(self, command: Message, *, command_id: str | None = None, expected_version: int | None = None) -> str:
        """Sends a move; returns its command id (its result will carry it)."""
        command_id = command_id or uuid.uuid4().hex
        message = game_service_pb2.PlayCommand(command=_envelope(game_pb2.Command, command), command_id=command_id)
        if expected_version is not None:
            message.expected_version = expected_version
        self._requests.put(game_service_pb2.PlayRequest(command=message))
        return command_id

    def __iter__(self) -> Iterator[game_service_pb2.PlayResponse]:
        return self

    def __next__(self) -> game_service_pb2.PlayResponse:
        response: game_service_pb2.PlayResponse = next(self._call)
        for event in response.events:
            self._client.saw(self._game_id, event.version)
        if response.HasField("result"):
            self._client.saw(self._game_id, response.result.version)
        if response.HasField("turn"):
            self._client.saw(self._game_id, response.turn.version)
        return response

    def finish(self) -> None:
        """Sends nothing more (a half-close): the session then ends by itself once the
        results of the commands sent have come, and iterating over it stops."""
        self._requests.put(None)

    def close(self) -> None:
        self._requests.put(None)
        self._call.cancel()

    def __enter__(self) -> PlaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


def _seat(seat: SeatLike) -> game_pb2.SeatSpec:
    if isinstance(seat, game_pb2.SeatSpec):
        return seat
    if isinstance(seat, str):
        return game_pb2.SeatSpec(name=seat)
    return game_pb2.SeatSpec(**seat)


def _envelope(envelope_type: type[Any], message: Message) -> Any:
    """Wraps a game's own message (e.g. ludotheque.mooki.v1.Command) in the envelope
    whose oneof field is named after the game (ludotheque.<kind>.v1)."""
    if isinstance(message, envelope_type):
        return message
    package = message.DESCRIPTOR.full_name.split(".")
    if len(package) < 3 or package[0] != "ludotheque":
        raise TypeError(f"cannot wrap a {message.DESCRIPTOR.full_name} in a {envelope_type.__name__}")
    envelope = envelope_type()
    getattr(envelope, package[1]).CopyFrom(message)
    return envelope
