"""The unary calls of the Python clients, written once for both: `ludotheque.Client`
(blocking) and `ludotheque.aio.Client` (asyncio) are the same table of calls over two
transports.

Each call is a `Call`: the RPC, a function that builds its request from the method's
arguments (whose signature and docstring are the method's), and what the method
returns of the response. Read on a blocking client (a `Blocking`) a call is a method
that returns it; read on an asyncio one (an `Asynchronous`), a method that returns an
awaitable of it. Both kinds of client send the same metadata (the bearer token, the
language) and retry a move the same way: with the same command id, so it is played at
most once. Both remember the highest version of each game they were given (`known`)
with its receipt, and say them on every call whose request has a `known_version`."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, ParamSpec, TypeVar, overload

import grpc
from google.protobuf.message import Message

from ludotheque.v1 import game_kind_pb2, game_pb2
from ludotheque.v1 import game_service_pb2 as api

P = ParamSpec("P")
R = TypeVar("R")
M = TypeVar("M", bound=Message)

SeatLike = game_pb2.SeatSpec | Mapping[str, Any] | str

RETRY_FIRST_DELAY = 0.1  # seconds before the first resend of a move, doubled each time


class KnownVersion(int):
    """A version of a game a server gave the client, with its `receipt`: the service's
    signature that it did (empty: none came with it). A server believes a known
    version only with its receipt. An int, so `known[game_id]` reads as a version."""

    receipt: str

    def __new__(cls, version: int, receipt: str = "") -> KnownVersion:
        known = super().__new__(cls, version)
        known.receipt = receipt
        return known


class Caller:
    """What both kinds of client remember: the highest version of each game they were
    given (`known`: the clients `with_token` makes share it), with its receipt
    (`KnownVersion`), which every call about the game and the Play join say
    (`known_version`, `known_receipt`). A server whose store lost versions the caller
    was shown (a Redis failover) then records the loss instead of giving their numbers
    to other moves (docs/DURABILITY.md)."""

    known: dict[str, int]

    def saw(self, game_id: str, version: int, receipt: str = "") -> int:
        """Notes that the game was at `version` (or later) as a server told it, with
        that version's `receipt` if it gave one; returns it."""
        held = self.known.get(game_id, 0)
        if version > held or (version == held and receipt and not getattr(held, "receipt", "")):
            self.known[game_id] = KnownVersion(version, receipt)
        return version

    def known_version(self, game_id: str) -> int:
        """The highest version of the game given to this caller (0: none)."""
        return int(self.known.get(game_id, 0))

    def known_receipt(self, game_id: str) -> str:
        """The receipt of that version ("": none)."""
        return str(getattr(self.known.get(game_id, 0), "receipt", ""))

    def saying_known(self, request: M) -> M:
        """`request`, with the caller's known version of its game and its receipt if it
        has the fields."""
        if "known_version" in request.DESCRIPTOR.fields_by_name:
            about: Any = request  # a request about one game: it has a game_id
            about.known_version = self.known_version(about.game_id)
            about.known_receipt = self.known_receipt(about.game_id)
        return request

    def saw_play(self, game_id: str, message: api.PlayResponse) -> None:
        """Notes the versions a Play session's message gives: its events', result's,
        turn's, the highest with the message's receipt."""
        told = max((event.version for event in message.events), default=0)
        if message.HasField("result"):
            told = max(told, message.result.version)
        if message.HasField("turn"):
            told = max(told, message.turn.version)
        if told:
            self.saw(game_id, told, message.receipt)


class Blocking(Caller):
    """A blocking client's side of a call: it sends the request and waits."""

    def _unary(self, rpc: str, request: Message, *, retry: bool) -> Any:
        raise NotImplementedError


class Asynchronous(Caller):
    """An asyncio client's side of a call: a coroutine that sends the request."""

    async def _unary(self, rpc: str, request: Message, *, retry: bool) -> Any:
        raise NotImplementedError


# The versions of games an answer gives (its request beside it): (game id, version, receipt).
Versions = Callable[[Any, Any], Iterable[tuple[str, int, str]]]


class Call(Generic[P, R]):
    """One unary call of the clients: `build(*args, **kwargs)` makes its request (sent
    with the caller's `known_version` of the game when it has the field), `pick` takes
    what the method returns from the response; `saw`: the versions of games the answer
    gives, which the caller remembers; `retry`: a move, resent after UNAVAILABLE with its
    command id."""

    def __init__(
        self,
        rpc: str,
        build: Callable[P, Message],
        pick: Callable[[Any], R],
        *,
        saw: Versions | None = None,
        retry: bool = False,
    ) -> None:
        self.rpc = rpc
        self.build = build
        self.pick = pick
        self.versions = saw
        self.retry = retry

    def request(self, client: Caller, *args: Any, **kwargs: Any) -> Message:
        return client.saying_known(self.build(*args, **kwargs))

    def answer(self, client: Caller, request: Message, response: Any) -> R:
        for game_id, version, receipt in self.versions(request, response) if self.versions is not None else ():
            client.saw(game_id, version, receipt)
        return self.pick(response)

    @overload
    def __get__(self, client: Asynchronous, owner: type | None = None) -> Callable[P, Awaitable[R]]: ...

    @overload
    def __get__(self, client: Blocking, owner: type | None = None) -> Callable[P, R]: ...

    @overload
    def __get__(self, client: None, owner: type | None = None) -> Call[P, R]: ...

    def __get__(self, client: Blocking | Asynchronous | None, owner: type | None = None) -> Any:
        if client is None:
            return self
        if isinstance(client, Asynchronous):
            asynchronous = client

            @functools.wraps(self.build)
            async def awaited(*args: P.args, **kwargs: P.kwargs) -> R:
                request = self.request(asynchronous, *args, **kwargs)
                response = await asynchronous._unary(self.rpc, request, retry=self.retry)
                return self.answer(asynchronous, request, response)

            return awaited
        blocking = client

        @functools.wraps(self.build)
        def called(*args: P.args, **kwargs: P.kwargs) -> R:
            request = self.request(blocking, *args, **kwargs)
            return self.answer(blocking, request, blocking._unary(self.rpc, request, retry=self.retry))

        return called


def whole(kind: type[M]) -> Callable[[Any], M]:
    """The response itself (of type `kind`)."""

    def pick(response: Any) -> M:
        assert isinstance(response, kind), f"{type(response).__name__} is no {kind.__name__}"
        return response

    return pick


def game_of(response: Any) -> game_pb2.Game:
    return whole(game_pb2.Game)(response.game)


def kinds_of(response: Any) -> list[game_kind_pb2.GameKind]:
    return list(response.kinds)


def the_game(_request: Any, response: Any) -> Iterable[tuple[str, int, str]]:
    """The version of the game an answer holds (`response.game`), with its receipt."""
    return itself(_request, response.game) if response.HasField("game") else []


def itself(_request: Any, game: game_pb2.Game) -> Iterable[tuple[str, int, str]]:
    """The version of the game that is the answer, with its receipt."""
    return [(game.game_id, game.version, game.receipt)]


def at_version(request: Any, response: Any) -> Iterable[tuple[str, int, str]]:
    """The version an answer about the request's game says it is at (`response.version`),
    with its receipt."""
    return [(request.game_id, response.version, response.receipt)]


def should_retry(error: grpc.RpcError, attempt: int, retries: int) -> float | None:
    """Seconds to wait before resending a move after `error` (its `attempt`-th failure,
    from 0), or None: not worth resending (only UNAVAILABLE is, `retries` times)."""
    if error.code() != grpc.StatusCode.UNAVAILABLE or attempt >= retries:
        return None
    return float(RETRY_FIRST_DELAY * 2**attempt)  # the same command id: at most once, whatever happened


def metadata(token: str | None, locale: str | None) -> tuple[tuple[str, str], ...]:
    """The bearer token (none: a spectator) and the language of descriptions and errors."""
    found = (("authorization", f"Bearer {token}"),) if token else ()
    return (*found, ("accept-language", locale)) if locale else found


# --- the requests ---------------------------------------------------------------------


def create_game(
    kind: str,
    seats: Sequence[SeatLike],
    options: Message | None = None,
    *,
    visibility: game_pb2.Visibility.ValueType = game_pb2.VISIBILITY_UNSPECIFIED,
    clock: game_pb2.TurnClock | Mapping[str, int] | None = None,
) -> api.CreateGameRequest:
    """Creates a game. Seats: SeatSpec messages, dicts like {"name": "Cléo",
    "age": 6}, {"name": "Bot", "bot": "greedy"} or {"open": True} (a player joins
    it: join_game), or plain names. Unlisted unless `visibility` says otherwise.
    `clock`: a TurnClock or a dict like {"turn_seconds": 60, "bank_seconds": 300,
    "take_over_after": 3}."""
    request = api.CreateGameRequest(kind=kind, seats=[seat_spec(s) for s in seats], visibility=visibility)
    if options is not None:
        request.options.CopyFrom(envelope(game_pb2.GameOptions, options))
    if clock is not None:
        request.clock.CopyFrom(clock if isinstance(clock, game_pb2.TurnClock) else game_pb2.TurnClock(**clock))
    return request


def join_game(
    game_id_or_code: str, name: str, *, age: int | None = None, seat: int | None = None, stand_in: str = ""
) -> api.JoinGameRequest:
    """Takes an open seat of a game, by its id or its join code; the response holds
    the seat's token (use it with with_token)."""
    request = api.JoinGameRequest(game_id=game_id_or_code, name=name, stand_in=stand_in)
    if age is not None:
        request.age = age
    if seat is not None:
        request.seat = seat
    return request


def quick_match(
    kind: str,
    name: str,
    options: Message | None = None,
    *,
    players: int = 0,
    age: int | None = None,
    stand_in: str = "",
    bots_after_seconds: int = 0,
    bot: str = "",
) -> api.QuickMatchRequest:
    """Plays with anyone: takes an open seat of the game of this kind and options
    (and `players`, 0: the fewest) that waits for players, or creates it. The
    response holds the seat's token (use it with with_token). With
    `bots_after_seconds`, bots (`bot`, default the kind's) take the seats still
    empty that long after the game's first player who asked for them."""
    request = api.QuickMatchRequest(
        kind=kind, name=name, players=players, stand_in=stand_in, bots_after_seconds=bots_after_seconds, bot=bot
    )
    if options is not None:
        request.options.CopyFrom(envelope(game_pb2.GameOptions, options))
    if age is not None:
        request.age = age
    return request


def leave_game(game_id: str) -> api.LeaveGameRequest:
    """Leaves this client's seat before the game starts (its token then stops working)."""
    return api.LeaveGameRequest(game_id=game_id)


def start_game(game_id: str, bot: str = "") -> api.StartGameRequest:
    """The host (a client with the host token) or the admin: deals the game now,
    with `bot` (default "greedy") in the seats nobody took."""
    return api.StartGameRequest(game_id=game_id, bot=bot)


def play_again(game_id: str) -> api.PlayAgainRequest:
    """The rematch of a finished game (the same for every player who asks), with
    this client's seat's token in it."""
    return api.PlayAgainRequest(game_id=game_id)


def take_over(game_id: str, *, bot: str = "", seat: int | None = None) -> api.TakeOverSeatRequest:
    """Lets a bot (default: the seat's stand-in) play this client's seat (admins:
    pass `seat`) until it is handed back."""
    request = api.TakeOverSeatRequest(game_id=game_id, bot=bot)
    if seat is not None:
        request.seat = seat
    return request


def hand_back(game_id: str, *, seat: int | None = None) -> api.HandBackSeatRequest:
    """Plays this client's seat again after a bot took it over (admins: pass `seat`)."""
    request = api.HandBackSeatRequest(game_id=game_id)
    if seat is not None:
        request.seat = seat
    return request


def get_game(game_id: str) -> api.GetGameRequest:
    """The game as this client sees it: status, version, seats, view and the moves
    this client may make (`legal_commands`)."""
    return api.GetGameRequest(game_id=game_id)


def list_games(
    kind: str = "",
    status: game_pb2.GameStatus.ValueType = game_pb2.GAME_STATUS_UNSPECIFIED,
    page_size: int = 0,
    page_token: str = "",
) -> api.ListGamesRequest:
    """Games, newest first, filtered by kind and status, a page at a time: listed and
    public ones (the admin: all)."""
    return api.ListGamesRequest(kind=kind, status=status, page_size=page_size, page_token=page_token)


def submit(
    game_id: str,
    command: Message,
    *,
    command_id: str | None = None,
    expected_version: int | None = None,
    seat: int | None = None,
) -> api.SubmitCommandRequest:
    """Plays a move for this client's seat (admins: pass `seat`). It carries a command
    id (a new UUID unless given), and is sent again with it after UNAVAILABLE (the
    client's `retries` times), so it is played at most once."""
    request = api.SubmitCommandRequest(
        game_id=game_id, command=envelope(game_pb2.Command, command), command_id=command_id or uuid.uuid4().hex
    )
    if expected_version is not None:
        request.expected_version = expected_version
    if seat is not None:
        request.seat = seat
    return request


def get_hint(game_id: str) -> api.GetHintRequest:
    """The move the game's strongest bot would make for this client's seat now (on its
    turn), described as in `legal_commands`, with one short reason in this client's
    language (`reason.text`)."""
    return api.GetHintRequest(game_id=game_id)


def list_events(game_id: str, from_version: int = 1, to_version: int = 0, page_size: int = 0) -> api.ListEventsRequest:
    """A page of the game's events, as this client may see them."""
    return api.ListEventsRequest(game_id=game_id, from_version=from_version, to_version=to_version, page_size=page_size)


def replay(game_id: str, at_version: int | None = None) -> api.ReplayGameRequest:
    """The game as this client saw it at `at_version` (default: now)."""
    request = api.ReplayGameRequest(game_id=game_id)
    if at_version is not None:
        request.at_version = at_version
    return request


def export_game(game_id: str, *, as_seat: int | None = None, as_spectator: bool = False) -> api.ExportGameRequest:
    """The game's log: complete with the admin token (and, for the admin, as a seat
    or a spectator saw it), else as this client's seat or a spectator saw it."""
    request = api.ExportGameRequest(game_id=game_id, as_spectator=as_spectator)
    if as_seat is not None:
        request.as_seat = as_seat
    return request


def import_game(log: game_pb2.GameLog, truncate_at: int | None = None) -> api.ImportGameRequest:
    """Admin: loads a complete log as a new game (cut at `truncate_at`)."""
    request = api.ImportGameRequest(log=log)
    if truncate_at is not None:
        request.truncate_at = truncate_at
    return request


def replay_log(
    log: game_pb2.GameLog,
    *,
    from_version: int = 0,
    to_version: int | None = None,
    page_size: int = 0,
    as_seat: int | None = None,
    as_spectator: bool = False,
) -> api.ReplayLogRequest:
    """Has the server verify and replay a complete log, storing nothing: whether it
    is valid (else its first bad event, `problem`) and the views of a page of its
    versions, complete or as a seat or a spectator saw them."""
    request = api.ReplayLogRequest(log=log, from_version=from_version, page_size=page_size, as_spectator=as_spectator)
    if to_version is not None:
        request.to_version = to_version
    if as_seat is not None:
        request.as_seat = as_seat
    return request


def rotate_seat_token(game_id: str, seat: int) -> api.RotateSeatTokenRequest:
    """Admin: the seat's new token; its previous ones stop working."""
    return api.RotateSeatTokenRequest(game_id=game_id, seat=seat)


def delete_game(game_id: str) -> api.DeleteGameRequest:
    """Admin: deletes a game and everything kept about it; its followers' streams end."""
    return api.DeleteGameRequest(game_id=game_id)


def issue_stream_ticket(game_id: str) -> api.IssueStreamTicketRequest:
    """A short-lived, single-use ticket standing for this client's seat in the game:
    `GET /v1/games/{game_id}/events:stream?ticket=...` then streams the seat's events
    without an authorization header (what a browser's EventSource needs)."""
    return api.IssueStreamTicketRequest(game_id=game_id)


def get_game_kind(kind: str) -> api.GetGameKindRequest:
    """What a renderer needs to know about a kind of game (names, options and
    presets, rule codes, material), in this client's language."""
    return api.GetGameKindRequest(kind=kind)


def list_game_kinds() -> api.ListGameKindsRequest:
    """Every kind of game the server plays."""
    return api.ListGameKindsRequest()


class Calls:
    """The unary calls both clients make, each one line: see the functions above."""

    create_game = Call("CreateGame", create_game, whole(api.CreateGameResponse), saw=the_game)
    join_game = Call("JoinGame", join_game, whole(api.JoinGameResponse), saw=the_game)
    quick_match = Call("QuickMatch", quick_match, whole(api.QuickMatchResponse), saw=the_game)
    leave_game = Call("LeaveGame", leave_game, game_of, saw=the_game)
    start_game = Call("StartGame", start_game, game_of, saw=the_game)
    play_again = Call("PlayAgain", play_again, whole(api.PlayAgainResponse), saw=the_game)
    take_over = Call("TakeOverSeat", take_over, game_of, saw=the_game)
    hand_back = Call("HandBackSeat", hand_back, game_of, saw=the_game)
    get_game = Call("GetGame", get_game, whole(game_pb2.Game), saw=itself)
    list_games = Call("ListGames", list_games, whole(api.ListGamesResponse))
    submit = Call("SubmitCommand", submit, whole(api.SubmitCommandResponse), saw=at_version, retry=True)
    get_hint = Call("GetHint", get_hint, whole(api.GetHintResponse))
    list_events = Call("ListEvents", list_events, whole(api.ListEventsResponse), saw=at_version)
    replay = Call("ReplayGame", replay, whole(api.ReplayGameResponse), saw=at_version)
    export_game = Call("ExportGame", export_game, lambda response: whole(game_pb2.GameLog)(response.log))
    import_game = Call("ImportGame", import_game, whole(api.ImportGameResponse), saw=the_game)
    replay_log = Call("ReplayLog", replay_log, whole(api.ReplayLogResponse))
    rotate_seat_token = Call("RotateSeatToken", rotate_seat_token, lambda response: str(response.seat_token))
    delete_game = Call("DeleteGame", delete_game, lambda _: None)
    issue_stream_ticket = Call("IssueStreamTicket", issue_stream_ticket, whole(api.IssueStreamTicketResponse))
    get_game_kind = Call("GetGameKind", get_game_kind, whole(game_kind_pb2.GameKind))
    list_game_kinds = Call("ListGameKinds", list_game_kinds, kinds_of)


def seat_spec(seat: SeatLike) -> game_pb2.SeatSpec:
    if isinstance(seat, game_pb2.SeatSpec):
        return seat
    if isinstance(seat, str):
        return game_pb2.SeatSpec(name=seat)
    return game_pb2.SeatSpec(**seat)


def envelope(envelope_type: type[Any], message: Message) -> Any:
    """Wraps a game's own message (e.g. ludotheque.mooki.v1.Command) in the envelope
    whose oneof field is named after the game (ludotheque.<kind>.v1)."""
    if isinstance(message, envelope_type):
        return message
    package = message.DESCRIPTOR.full_name.split(".")
    if len(package) < 3 or package[0] != "ludotheque":
        raise TypeError(f"cannot wrap a {message.DESCRIPTOR.full_name} in a {envelope_type.__name__}")
    wrapped = envelope_type()
    getattr(wrapped, package[1]).CopyFrom(message)
    return wrapped
