"""Play over WebSocket (GET /v1/play) end to end, with aiohttp's WebSocket client: the
same session as gRPC Play in binary protobuf or JSON frames, resumed after a drop,
kept alive by pings, and every way it is refused or ends, each with its close code."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import tempfile
import threading
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest
from google.rpc import error_details_pb2
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from tests.support.aio import async_test
from tests.support.raw_websocket import PING, TEXT, RawWebSocket, text_frame
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server, watched_server
from tests.support.traced_server import SPANS_ENV
from tests.support.waiting import wait_until

ALLOWED_ORIGIN = "https://games.example"
SETTINGS = {
    "LUDOTHEQUE_PLAY_JOIN_TIMEOUT": "1",
    "LUDOTHEQUE_WEBSOCKET_HEARTBEAT": "1",
    "LUDOTHEQUE_WEBSOCKET_SEND_TIMEOUT": "1",
    "LUDOTHEQUE_CORS_ORIGINS": ALLOWED_ORIGIN,
}
DEADLINE = 20.0  # seconds any of these exchanges may take at most
TRACE_ID = "5ce0e9a56015fec5aadfa328ae398115"
TRACEPARENT = f"00-{TRACE_ID}-ab42124a3c573678-01"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with watched_server(env=SETTINGS) as process:
        yield process


@asynccontextmanager
async def connected(
    server: ServerProcess, *, protocol: str | None = None, **options: Any
) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    protocols = (protocol,) if protocol else ()
    async with (
        aiohttp.ClientSession(**options.pop("session", {})) as session,
        session.ws_connect(f"{server.http}/v1/play", protocols=protocols, **options) as ws,
    ):
        yield ws


async def send(ws: aiohttp.ClientWebSocketResponse, request: api.PlayRequest) -> None:
    await ws.send_bytes(request.SerializeToString())


async def receive(ws: aiohttp.ClientWebSocketResponse) -> api.PlayResponse | None:
    """The next message, or None once the server has closed."""
    async with asyncio.timeout(DEADLINE):
        frame = await ws.receive()
    if frame.type is aiohttp.WSMsgType.BINARY:
        return api.PlayResponse.FromString(frame.data)
    assert frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING), frame
    return None


async def until_closed(ws: aiohttp.ClientWebSocketResponse) -> list[api.PlayResponse]:
    messages = []
    while (message := await receive(ws)) is not None:
        messages.append(message)
    return messages


def join(game_id: str, token: str = "", from_version: int = 1) -> api.PlayRequest:
    return api.PlayRequest(join=api.PlayJoin(game_id=game_id, token=token, from_version=from_version))


def play(command: game_pb2.Command, command_id: str) -> api.PlayRequest:
    return api.PlayRequest(command=api.PlayCommand(command=command, command_id=command_id))


class Seat:
    """A seat's log over one or more connections: events in order, the last turn, results."""

    def __init__(self) -> None:
        self.events: list[game_pb2.Event] = []
        self.turn: api.PlayTurn | None = None
        self.results: list[api.PlayResult] = []

    @property
    def next_version(self) -> int:
        return self.events[-1].version + 1 if self.events else 1

    @property
    def over(self) -> bool:
        return bool(self.events) and self.events[-1].game_over

    def rejoin(self, game_id: str, token: str) -> api.PlayRequest:
        """The join of a new connection: from the last version seen, no turn known yet."""
        self.turn = None
        return join(game_id, token, self.next_version)

    def take(self, message: api.PlayResponse) -> None:
        self.events.extend(message.events)
        if message.HasField("result"):
            self.results.append(message.result)
        self.turn = message.turn if message.HasField("turn") else None


def new_game(server: ServerProcess, *seats: str | dict[str, str]) -> api.CreateGameResponse:
    with Client(server.target) as lobby:
        return lobby.create_game("mooki", list(seats or ("Cléo", {"name": "Robin", "bot": "greedy"})))


def history(server: ServerProcess, game_id: str, token: str) -> list[game_pb2.Event]:
    with Client(server.target, token=token) as seat:
        return seat.history(game_id)


# --- playing ---------------------------------------------------------------------------


@async_test
async def test_a_whole_game_against_a_bot_in_binary_frames(server: ServerProcess) -> None:
    created = new_game(server)
    token = created.seat_tokens[0]
    seat = Seat()
    async with connected(server) as ws:  # no subprotocol: binary protobuf
        assert ws.protocol is None
        await send(ws, join(created.game_id, token))  # the token in the join, not in the URL
        moves = 0
        while not seat.over:
            message = await receive(ws)
            assert message is not None
            seat.take(message)
            if seat.turn is not None and not seat.over:
                moves += 1
                await send(ws, play(seat.turn.legal_commands[0], f"move-{moves}"))
    assert seat.events == history(server, created.game_id, token)  # all of it, in order, once
    assert all(not result.HasField("error") for result in seat.results) and len(seat.results) >= moves - 1


@async_test
async def test_json_text_frames_with_their_subprotocol(server: ServerProcess) -> None:
    created = new_game(server, "Cléo", "Robin")
    async with connected(server, protocol="ludotheque.v1.json") as ws:
        assert ws.protocol == "ludotheque.v1.json"
        await ws.send_str(json.dumps({"join": {"gameId": created.game_id, "token": created.seat_tokens[1]}}))
        first = await ws.receive_json(timeout=DEADLINE)
        assert [event["version"] for event in first["events"]] == ["1"]  # 64-bit integers as strings
        assert "turn" not in first  # it is Cléo's turn
        draw = {"mooki": {"draw": {"pile": 0}}}
        await ws.send_str(json.dumps({"command": {"command": draw, "commandId": "too-early"}}))
        refused = await ws.receive_json(timeout=DEADLINE)
        assert refused["result"]["commandId"] == "too-early"
        assert refused["result"]["error"]["code"] == grpc.StatusCode.FAILED_PRECONDITION.value[0]  # goes on


def test_a_join_sent_with_the_upgrade_is_read(server: ServerProcess) -> None:
    # A client should wait for the upgrade's answer before it sends a frame; one that
    # does not loses nothing: what came with the request goes with the connection when
    # aiohttp hands it over (http_guard.hand_over).
    created = new_game(server, "Cléo", "Robin")
    joining = text_frame(json.dumps({"join": {"gameId": created.game_id, "token": created.seat_tokens[1]}}))
    eager = RawWebSocket("127.0.0.1", server.http_port, "/v1/play", protocol="ludotheque.v1.json", early=joining)
    try:
        first = eager.receive()
    finally:
        eager.close()
    assert first is not None and first.opcode == TEXT
    assert [event["version"] for event in json.loads(first.payload)["events"]] == ["1"]


def test_a_burst_of_commands_in_one_packet_is_answered_whole(server: ServerProcess) -> None:
    # More messages in one read of the socket than the connection holds before it stops
    # reading (ws_connection.INBOX_FRAMES): each gets its result, in order.
    created = new_game(server, "Cléo", "Robin")
    burst = text_frame(json.dumps({"join": {"gameId": created.game_id, "token": created.seat_tokens[1]}}))
    draw = {"mooki": {"draw": {"pile": 0}}}  # not Robin's turn: each refused, the session goes on
    commands = [f"early-{n}" for n in range(100)]
    burst += b"".join(text_frame(json.dumps({"command": {"command": draw, "commandId": c}})) for c in commands)
    eager = RawWebSocket("127.0.0.1", server.http_port, "/v1/play", protocol="ludotheque.v1.json", early=burst)
    answered: list[str] = []
    try:
        while len(answered) < len(commands) and (frame := eager.receive()) is not None:
            if frame.opcode == PING:
                eager.send_pong(frame.payload)  # what it read: the server sends on
            elif frame.opcode == TEXT and "result" in (message := json.loads(frame.payload)):
                answered.append(message["result"]["commandId"])
    finally:
        eager.close()
    assert answered == commands


async def next_presence(ws: aiohttp.ClientWebSocketResponse) -> list[int]:
    """The online seats of the next message that says who is connected."""
    while True:
        message = await receive(ws)
        assert message is not None, "the server closed the session"
        if message.HasField("presence"):
            return list(message.presence.online_seats)


@async_test
async def test_presence_over_the_websocket_is_the_sessions_own(server: ServerProcess) -> None:
    """The WebSocket is the Play session: its seat is online while it is open, and a join
    that asks for presence hears of every change, as over gRPC."""
    created = new_game(server, "Cléo", "Robin")
    game_id, (cleo, robin) = created.game_id, created.seat_tokens
    presence = api.PlayRequest(join=api.PlayJoin(game_id=game_id, token=cleo, presence=True))
    async with connected(server) as first:
        await send(first, presence)
        assert await next_presence(first) == [0]
        async with connected(server, protocol="ludotheque.v1.json") as second:
            await second.send_str(json.dumps({"join": {"gameId": game_id, "token": robin}}))
            assert await next_presence(first) == [0, 1]
            with Client(server.target) as spectator:
                assert list(spectator.get_game(game_id).presence.online_seats) == [0, 1]
        assert await next_presence(first) == [0]  # Robin's socket closed: offline at once
    assert not [e for e in history(server, game_id, cleo) if e.HasField("table")]  # presence is no event


async def read_until(ws: aiohttp.ClientWebSocketResponse, seat: Seat, done: Callable[[], bool]) -> None:
    while not done():
        message = await receive(ws)
        assert message is not None, "the server closed the session"
        seat.take(message)


def play_while_away(server: ServerProcess, game_id: str, tokens: Sequence[str]) -> None:
    """Cléo finishes her turn and Robin plays his, over unary calls: the game moves on
    while Cléo's WebSocket is down."""
    for seat, token in enumerate(tokens):
        with Client(server.target, token=token) as player:
            while (game := player.get_game(game_id)).status == game_pb2.GAME_STATUS_ACTIVE and game.to_act[0] == seat:
                player.submit(game_id, game.legal_commands[0])


@async_test
async def test_resuming_after_a_dropped_connection_loses_and_repeats_nothing(server: ServerProcess) -> None:
    created = new_game(server, "Cléo", "Robin")
    cleo_token = created.seat_tokens[0]
    cleo = Seat()
    for round_ in range(3):
        async with connected(server) as ws:
            await send(ws, cleo.rejoin(created.game_id, cleo_token))  # from the last version seen
            await read_until(ws, cleo, lambda: cleo.turn is not None)
            assert cleo.turn is not None and cleo.turn.version == cleo.events[-1].version
            command_id = f"move-{round_}"
            await send(ws, play(cleo.turn.legal_commands[0], command_id))
            await read_until(ws, cleo, lambda: any(r.command_id == command_id for r in cleo.results))  # noqa: B023
            ws.get_extra_info("socket").shutdown(socket.SHUT_RDWR)  # the network drops
        play_while_away(server, created.game_id, created.seat_tokens)
    async with connected(server) as ws:  # once more, to read what happened since
        await send(ws, cleo.rejoin(created.game_id, cleo_token))
        await read_until(ws, cleo, lambda: cleo.turn is not None)
    assert [event.version for event in cleo.events] == list(range(1, len(cleo.events) + 1))
    # The same events as the history's (which tells covered cards as cards now: the memory
    # rule, seeds/mooki/RULES.md decision 7; a session's catch-up did too, when it came).
    told = history(server, created.game_id, cleo_token)
    assert [(e.version, e.mooki.WhichOneof("kind")) for e in cleo.events] == [
        (e.version, e.mooki.WhichOneof("kind")) for e in told
    ]


@async_test
async def test_pings_keep_a_session_alive_and_a_client_that_never_answers_is_disconnected(
    server: ServerProcess,
) -> None:
    created = new_game(server, "Cléo", "Robin")
    async with connected(server, autoping=False) as ws:
        await send(ws, join(created.game_id))
        frame = await ws.receive(timeout=DEADLINE)
        assert frame.type is aiohttp.WSMsgType.BINARY  # the deal
        frame = await ws.receive(timeout=DEADLINE)
        assert frame.type is aiohttp.WSMsgType.PING  # within the heartbeat (1 s here)
        await ws.pong(frame.data)
        frame = await ws.receive(timeout=DEADLINE)
        assert frame.type is aiohttp.WSMsgType.PING  # answered: still open, pinged again
        frame = await ws.receive(timeout=DEADLINE)  # not answered: cut within half a heartbeat
        assert frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)


# --- refusals and endings --------------------------------------------------------------


async def closing(server: ServerProcess, *requests: api.PlayRequest | str) -> tuple[int | None, api.PlayResponse]:
    """Sends `requests` (a str: a text frame), and returns the close code and the
    last message, which carries the error."""
    async with connected(server) as ws:
        for request in requests:
            if isinstance(request, str):
                await ws.send_str(request)
            else:
                await send(ws, request)
        messages = await until_closed(ws)
        return ws.close_code, messages[-1]


@async_test
async def test_errors_end_the_session_with_4000_plus_their_code_after_a_last_message(server: ServerProcess) -> None:
    created = new_game(server)
    cases: dict[str, tuple[tuple[api.PlayRequest | str, ...], grpc.StatusCode]] = {
        "no join in time": ((), grpc.StatusCode.DEADLINE_EXCEEDED),
        "not a join first": ((play(game_pb2.Command(), "x"),), grpc.StatusCode.INVALID_ARGUMENT),
        "a forged token": ((join(created.game_id, "0.forged"),), grpc.StatusCode.UNAUTHENTICATED),
        "no such game": ((join("no-such-game"),), grpc.StatusCode.NOT_FOUND),
        "unreadable bytes": ((api.PlayRequest(),), grpc.StatusCode.INVALID_ARGUMENT),
        "a text frame in a binary session": (('{"join": {}}',), grpc.StatusCode.INVALID_ARGUMENT),
    }
    for case, (requests, status) in cases.items():
        if case == "unreadable bytes":
            async with connected(server) as ws:
                await ws.send_bytes(b"\xff\xff\xff")
                messages = await until_closed(ws)
                code, last = ws.close_code, messages[-1]
        else:
            code, last = await closing(server, *requests)
        assert code == 4000 + status.value[0], case
        assert last.error.code == status.value[0] and last.error.message, case


@async_test
async def test_what_is_refused_before_the_upgrade(server: ServerProcess) -> None:
    async with aiohttp.ClientSession() as session:
        created = new_game(server)
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"{server.http}/v1/play", protocols=("chat",))
        assert refused.value.status == 400  # no subprotocol agreed: no socket to keep open
        async with session.get(f"{server.http}/v1/play") as response:  # not an upgrade
            assert response.status == 426 and (await response.json())["code"] == 3
        for origin in (ALLOWED_ORIGIN, server.http, None):  # listed, the server's own, or none (not a browser)
            ws = await session.ws_connect(f"{server.http}/v1/play", origin=origin)
            await send(ws, join(created.game_id))
            assert (await receive(ws)) is not None
            await ws.close()


async def refused(server: ServerProcess, path: str = "/v1/play", **options: Any) -> tuple[int, str, api.PlayResponse]:
    """What a page is told when its socket is refused: a browser cannot read a refused
    handshake's status, so the upgrade is accepted and then closed, saying why. The close
    code and reason (what a browser's CloseEvent has), and the last message."""
    last = api.PlayResponse()
    async with aiohttp.ClientSession() as session, session.ws_connect(f"{server.http}{path}", **options) as ws:
        while True:  # nothing is sent: the server reads nothing from a refused client
            async with asyncio.timeout(DEADLINE):
                frame = await ws.receive()
            if frame.type is aiohttp.WSMsgType.BINARY:
                last = api.PlayResponse.FromString(frame.data)
            else:
                assert frame.type is aiohttp.WSMsgType.CLOSE, frame
                return int(frame.data), str(frame.extra), last


@async_test
async def test_a_page_on_an_origin_not_listed_is_told_which_origin_and_which_setting(server: ServerProcess) -> None:
    page = "http://localhost:5173"  # e.g. a dev server on localhost while the list names 127.0.0.1
    code, reason, last = await refused(server, origin=page)
    assert code == 4000 + grpc.StatusCode.PERMISSION_DENIED.value[0]
    assert page in reason and "--cors-origins" in reason and "LUDOTHEQUE_CORS_ORIGINS" in reason
    assert len(reason.encode()) <= 123
    assert last.error.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
    assert page in last.error.message and "--cors-origins" in last.error.message
    assert metric(server, 'ludotheque_websocket_closes_total{code="4007"}') >= 1


@async_test
async def test_a_token_in_the_url_is_refused_with_a_reason_the_page_can_read(server: ServerProcess) -> None:
    created = new_game(server)
    code, reason, _ = await refused(server, f"/v1/play?token={created.seat_tokens[0]}")
    assert code == 4000 + grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "join message" in reason and created.seat_tokens[0] not in reason
    async with connected(server, params={"traceparent": TRACEPARENT}) as ws:  # the one parameter allowed
        await send(ws, join(created.game_id))
        assert (await receive(ws)) is not None


@async_test
async def test_a_wrong_or_revoked_token_ends_the_session_saying_so(server: ServerProcess) -> None:
    created = new_game(server, "Cléo", "Robin")
    with Client(server.target, token=ADMIN_TOKEN) as admin:
        admin.rotate_seat_token(created.game_id, 0)  # Cléo's first token stops working
    for token in ("0.forged", created.seat_tokens[0]):
        code, last = await closing(server, join(created.game_id, token))
        assert code == 4000 + grpc.StatusCode.UNAUTHENTICATED.value[0], token
        assert last.error.code == grpc.StatusCode.UNAUTHENTICATED.value[0] and last.error.message, token


def test_a_client_that_stops_reading_is_cut_and_resumes_where_it_was(server: ServerProcess) -> None:
    # A long finished game of bots, followed in JSON by a client with a small receive
    # buffer that reads nothing: the buffers fill, the server's send waits, and after
    # the send timeout (1 s here) it cuts the client rather than hold its messages.
    with Client(server.target) as lobby:
        created = lobby.create_game("pirates", [{"name": f"Bot {i}", "bot": "random"} for i in range(4)])
        everything = lobby.history(created.game_id)
    stalled = RawWebSocket(
        "127.0.0.1", server.http_port, "/v1/play", protocol="ludotheque.v1.json", receive_buffer=4096
    )
    try:
        stalled.send_text(json.dumps({"join": {"gameId": created.game_id}}))
        wait_until(lambda: metric(server, 'ludotheque_websocket_closes_total{code="4008"}') >= 1, DEADLINE, "the cut")
        received: list[int] = []
        # What was on its way, with the pings that ask for read receipts (read_receipts.py).
        while (frame := stalled.receive()) is not None and frame.opcode in (TEXT, PING):
            if frame.opcode == TEXT:
                received.extend(int(event["version"]) for event in json.loads(frame.payload).get("events", []))
    finally:
        stalled.close()
    assert received == list(range(1, len(received) + 1)) and len(received) < len(everything)
    wait_until(lambda: metric(server, "ludotheque_active_subscriptions") == 0, DEADLINE, "the session's end")
    resumed = Seat()
    resumed.events = [game_pb2.Event(version=len(received))]
    with ThreadPoolExecutor(1) as thread:  # the resumed session, over aiohttp, from the last version received

        async def resume() -> None:
            async with connected(server) as ws:
                await send(ws, join(created.game_id, from_version=resumed.next_version))
                await read_until(ws, resumed, lambda: resumed.over)

        thread.submit(asyncio.run, resume()).result(DEADLINE)
    assert resumed.events[1:] == everything[len(received) :]


def metric(server: ServerProcess, sample: str) -> float:
    with urllib.request.urlopen(f"{server.http}/metrics", timeout=DEADLINE) as response:
        found = re.search(rf"^{re.escape(sample)} (\S+)$", response.read().decode(), re.M)
    return float(found.group(1)) if found else 0.0


def test_the_grpc_play_stream_has_the_same_join_deadline(server: ServerProcess) -> None:
    stop = threading.Event()

    def silence() -> Iterator[api.PlayRequest]:  # a stream that stays open and sends nothing
        stop.wait(DEADLINE)
        yield from ()

    try:
        with Client(server.target) as lobby, pytest.raises(grpc.RpcError) as ended:
            next(lobby.stub.Play(silence()))
    finally:
        stop.set()
    assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED and "join" in (ended.value.details() or "")


@async_test
async def test_sessions_are_told_when_the_server_stops() -> None:
    with running_server() as stopping:
        created = new_game(stopping, "Cléo", "Robin")
        async with connected(stopping) as ws:
            await send(ws, join(created.game_id))
            assert (await receive(ws)) is not None  # the deal; now waiting for moves
            stopping.process.send_signal(signal.SIGTERM)
            messages = await until_closed(ws)
            # Going away (1001), or, for a session whose stream was ended first, the
            # UNAVAILABLE error saying so (4014): either way, resume on another server.
            assert ws.close_code in (1001, 4000 + grpc.StatusCode.UNAVAILABLE.value[0])
            if ws.close_code != 1001:
                assert "shutting down" in messages[-1].error.message


@async_test
async def test_each_move_is_a_request_of_its_own_in_the_trace_the_page_sent() -> None:
    # A browser cannot send headers with its WebSocket: its traceparent comes as the one
    # query parameter, and every move gets a request id of its own, the session's with
    # the move's number, in its access line and in the error a refused move carries.
    spans_file = Path(tempfile.mkstemp(prefix="ludotheque-spans-", suffix=".jsonl")[1])
    env = {**SETTINGS, "LUDOTHEQUE_LOG_FORMAT": "json", SPANS_ENV: str(spans_file)}
    with running_server(env=env, module="tests.support.traced_server") as traced:
        created = new_game(traced, "Cléo", "Robin")
        cleo = Seat()
        async with connected(traced, params={"traceparent": TRACEPARENT}) as ws:
            await send(ws, join(created.game_id, created.seat_tokens[0]))
            await read_until(ws, cleo, lambda: cleo.turn is not None)
            assert cleo.turn is not None
            place = game_pb2.Command(mooki=mooki.Command(place=mooki.Place()))  # before drawing: illegal
            await send(ws, play(place, "too-soon"))
            await send(ws, play(cleo.turn.legal_commands[0], "drawn"))
            await read_until(ws, cleo, lambda: len(cleo.results) == 2)
        refused_result = next(result for result in cleo.results if result.command_id == "too-soon")
        info = error_details_pb2.RequestInfo()
        assert [detail for detail in refused_result.error.details if detail.Unpack(info)], "a RequestInfo"
        assert info.serving_data == f"trace_id={TRACE_ID}"
        assert traced.stop() == 0
        lines = [json.loads(line) for line in traced.log().splitlines() if line.startswith("{")]
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    spans_file.unlink()

    access = [line for line in lines if line["logger"] == "ludotheque.access"]
    [session] = [line for line in access if line["method"] == "GET /v1/play"]
    moves = {line["command_id"]: line for line in access if line["method"] == "GET /v1/play command"}
    assert moves.keys() == {"too-soon", "drawn"}
    assert {moves["too-soon"]["request_id"], moves["drawn"]["request_id"]} == {
        f"{session['request_id']}.1",
        f"{session['request_id']}.2",
    }
    assert moves["too-soon"]["request_id"] == info.request_id
    assert all(line["trace_id"] == TRACE_ID for line in (session, *moves.values()))
    [play_span] = [span for span in spans if span["name"] == "ludotheque.play"]
    assert play_span["trace_id"] == TRACE_ID and play_span["parent_id"] == TRACEPARENT.split("-")[2]
    [upgrade] = [span for span in spans if span["name"] == "GET /v1/play"]
    assert play_span["links"] == [upgrade["span_id"]]
    played = [span for span in spans if span["name"] == "ludotheque.move"]
    assert len(played) == 2 and all(span["parent_id"] == play_span["span_id"] for span in played)
