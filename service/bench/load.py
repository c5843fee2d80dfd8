"""The load: processes of their own that drive games against a running server.

Each load process runs one asyncio loop with grpc.aio (or aiohttp for REST and
WebSocket) and
plays many games at once, so the load's CPU is not the server's and the server's
CPU time can be read from /proc alone. The parent sends a process one Job at a time
over a pipe; the process answers "ready" once connected, receives the measured
window (wall-clock start and end), plays until the window ends and answers an
Outcome: what happened inside the window only.

How a move is driven (every seat is a human, each with its own token, as two
frontends would be):
- unary gRPC / REST: SubmitCommand with a random legal command; the next legal
  commands come from its response when the same seat acts again, else from a
  GetGame of the seat whose turn it is (so RPCs per move are reported);
- Play: one session per seat; a `turn` carries the legal commands, the command goes
  up the same stream and its `result` ends the move (the result and the next turn
  usually come in the message that carries the move's events);
- Play over WebSocket: the same, one WebSocket per seat (GET /v1/play, binary
  protobuf frames, the token in the join); its baseline is a WebSocket echo round trip
  (GET /v1/diagnostics/echo) of the same 16 bytes as the gRPC echo.

The transports' floors, each a call that does nothing with the same 16 bytes: a unary
gRPC Echo, a message each way on an open gRPC EchoStream, Echo over Connect (binary
protobuf) and over REST (JSON), and a WebSocket echo round trip."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import aiohttp
import grpc
from ludotheque.v1 import diagnostics_pb2, diagnostics_pb2_grpc, game_pb2, game_service_pb2, game_service_pb2_grpc

from engines.registry import ENGINES

ECHO_PAYLOAD = b"0123456789abcdef"  # 16 bytes: a trivial call
CREATE_CONCURRENCY = 16  # CreateGame calls in flight per load process when making the pool
# A write's body is said to be JSON: another content type is refused (a foreign page's
# form could send it: tests/hostile/test_cross_origin.py).
JSON_BODY = {"Content-Type": "application/json"}


@dataclass(frozen=True, slots=True)
class NewGame:
    game_id: str
    tokens: tuple[str, ...]
    first_seat: int  # the seat to act first
    humans: tuple[int, ...]  # the seats the load plays (the others are the server's bots)


@dataclass(slots=True)
class Job:
    """What one load process does next. mode: "create" (make `count` games, outside
    any window), "echo", "stream-echo", "connect-echo", "rest-echo", "ws-echo" (the
    floors), "unary", "unary-bot", "play", "play-bot", "rest", "stream", "ws-play",
    "ws-play-bot" (the -bot modes play games of one human seat against the server's
    bots)."""

    mode: str
    target: str
    http: str
    kind: str
    concurrency: int  # games (or echo callers) played at once by this process
    pool: list[NewGame] = field(default_factory=list)  # games made beforehand, used first
    count: int = 0  # "create": how many
    subscribers: int = 0  # "stream": StreamEvents subscribers per game
    seed: int = 0
    bots: bool = False  # "create": games of one human seat against the server's bots
    channels: int = 1  # gRPC connections the process spreads its games over
    # "ws-play": the seconds a seat waits at each turn before moving, on average (each
    # wait drawn from ±50% of it, so that the games do not move in step); 0: flat out.
    think: float = 0.0


@dataclass(slots=True)
class Outcome:
    """What one load process saw inside the window. `count`: moves (echo: calls;
    stream: events delivered to subscribers). `latencies`: seconds, one per move
    (stream: per delivered event, from its recorded_at)."""

    count: int = 0
    rpcs: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    games_created: int = 0  # CreateGame calls inside the window (the pool ran dry)
    moves: int = 0  # stream: the moves that produced the events
    created: list[NewGame] = field(default_factory=list)  # "create": the games made


class Window:
    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def open(self, now: float) -> bool:
        return self.start <= now < self.end

    def over(self) -> bool:
        return time.time() >= self.end


def seats_for(kind: str, bots: bool = False) -> list[game_pb2.SeatSpec]:
    """Two seats (or the game's minimum): all human, or seat 0 human and the others bots."""
    engine = ENGINES[kind]
    count = min(max(engine.min_seats, 2), engine.max_seats)
    return [
        game_pb2.SeatSpec(name=f"Seat {i}", age=20 + i, bot="random" if bots and i > 0 else "") for i in range(count)
    ]


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


class _Games:
    """Hands out games: from the pool first, then new ones (counted if inside the window)."""

    def __init__(self, job: Job, create: Callable[[], Awaitable[NewGame]], window: Window, outcome: Outcome) -> None:
        self.pool = list(job.pool)
        self.create = create
        self.window = window
        self.outcome = outcome

    async def next(self) -> NewGame:
        if self.pool:
            return self.pool.pop()
        if self.window.open(time.time()):
            self.outcome.games_created += 1
            self.outcome.rpcs += 1
        return await self.create()


# --- gRPC --------------------------------------------------------------------------


async def _create_grpc(stub: Any, kind: str, bots: bool = False) -> NewGame:
    seats = seats_for(kind, bots)
    response = await stub.CreateGame(game_service_pb2.CreateGameRequest(kind=kind, seats=seats))
    humans = tuple(seat for seat, spec in enumerate(seats) if not spec.bot)
    return NewGame(response.game_id, tuple(response.seat_tokens), response.game.to_act[0], humans)


async def _unary_games(stub: Any, games: _Games, window: Window, outcome: Outcome, rng: random.Random) -> None:
    while not window.over():
        game = await games.next()
        await _unary_game(stub, game, window, outcome, rng)


async def _unary_game(stub: Any, game: NewGame, window: Window, outcome: Outcome, rng: random.Random) -> None:
    seat = game.first_seat
    view = await stub.GetGame(game_service_pb2.GetGameRequest(game_id=game.game_id), metadata=_auth(game.tokens[seat]))
    outcome.rpcs += window.open(time.time())
    legal = list(view.legal_commands)
    while not window.over():
        request = game_service_pb2.SubmitCommandRequest(
            game_id=game.game_id, command=rng.choice(legal), command_id=uuid.uuid4().hex
        )
        sent = time.perf_counter()
        response = await stub.SubmitCommand(request, metadata=_auth(game.tokens[seat]))
        latency = time.perf_counter() - sent
        if window.open(time.time()):
            outcome.count += 1
            outcome.rpcs += 1
            outcome.latencies.append(latency)
        if response.status == game_pb2.GAME_STATUS_FINISHED or not response.to_act:
            return
        if response.to_act[0] == seat:
            legal = list(response.legal_commands)
        else:
            seat = response.to_act[0]
            view = await stub.GetGame(
                game_service_pb2.GetGameRequest(game_id=game.game_id), metadata=_auth(game.tokens[seat])
            )
            outcome.rpcs += window.open(time.time())
            legal = list(view.legal_commands)


async def _play_games(stub: Any, games: _Games, window: Window, outcome: Outcome, rng: random.Random) -> None:
    while not window.over():
        game = await games.next()
        await asyncio.gather(*(_play_seat(stub, game, seat, window, outcome, rng) for seat in game.humans))


async def _play_seat(stub: Any, game: NewGame, seat: int, window: Window, outcome: Outcome, rng: random.Random) -> None:
    call = stub.Play(metadata=_auth(game.tokens[seat]))
    join = game_service_pb2.PlayJoin(game_id=game.game_id)
    await call.write(game_service_pb2.PlayRequest(join=join))

    async def read() -> game_service_pb2.PlayResponse | None:
        message = await call.read()
        return None if message is grpc.aio.EOF else message

    try:
        await _drive_session(read, call.write, window, outcome, rng)
    finally:
        call.cancel()


async def _drive_session(
    read: Callable[[], Awaitable[game_service_pb2.PlayResponse | None]],
    write: Callable[[game_service_pb2.PlayRequest], Awaitable[None]],
    window: Window,
    outcome: Outcome,
    rng: random.Random,
    think: float = 0.0,
) -> None:
    """One seat's Play session (gRPC or WebSocket) after its join: a random legal
    command at each turn (after about `think` seconds: a human's pace), a move counted at its
    result, until the game ends."""
    sent: dict[str, float] = {}
    over = False  # the game's last event came; the last move's result may follow it
    while not (over and not sent):
        message = await read()
        if message is None:
            return
        outcome.rpcs += window.open(time.time())  # Play: the stream's messages, both ways
        if message.events:
            over = message.events[-1].game_over
        if message.HasField("result"):
            result = message.result
            started = sent.pop(result.command_id, None)
            if result.HasField("error"):
                outcome.errors += 1
            elif started is not None and window.open(time.time()):
                outcome.count += 1
                outcome.latencies.append(time.perf_counter() - started)
        if window.over():
            return
        if message.HasField("turn"):
            if think > 0:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                if window.over():
                    return
            command_id = uuid.uuid4().hex
            command = game_service_pb2.PlayCommand(
                command=rng.choice(message.turn.legal_commands), command_id=command_id
            )
            sent[command_id] = time.perf_counter()
            await write(game_service_pb2.PlayRequest(command=command))
            outcome.rpcs += window.open(time.time())


async def _echo(stub: Any, window: Window, outcome: Outcome) -> None:
    request = diagnostics_pb2.EchoRequest(payload=ECHO_PAYLOAD)
    while not window.over():
        sent = time.perf_counter()
        await stub.Echo(request)
        latency = time.perf_counter() - sent
        if window.open(time.time()):
            outcome.count += 1
            outcome.rpcs += 1
            outcome.latencies.append(latency)


async def _stream_echo(stub: Any, window: Window, outcome: Outcome) -> None:
    """One EchoStream: a message up, its answer down, again and again (one round trip
    counted per answer)."""
    call = stub.EchoStream()
    request = diagnostics_pb2.EchoStreamRequest(payload=ECHO_PAYLOAD)
    try:
        while not window.over():
            sent = time.perf_counter()
            await call.write(request)
            if await call.read() is grpc.aio.EOF:
                return
            latency = time.perf_counter() - sent
            if window.open(time.time()):
                outcome.count += 1
                outcome.rpcs += 1
                outcome.latencies.append(latency)
    finally:
        call.cancel()


async def _subscribe(stub: Any, game: NewGame, window: Window, outcome: Outcome) -> None:
    """A spectator following a game: each event's delay from its recorded_at (events
    recorded before it subscribed are history: delivered, but no fan-out delay)."""
    subscribed_ms = int(time.time() * 1000)
    call = stub.StreamEvents(game_service_pb2.StreamEventsRequest(game_id=game.game_id))
    try:
        async for message in call:
            now = time.time()
            if window.open(now):
                outcome.count += 1
                recorded_ms = message.event.recorded_at.ToMilliseconds()
                if recorded_ms >= subscribed_ms:
                    outcome.latencies.append(now - recorded_ms / 1000)
            if message.event.game_over or window.over():
                return
    finally:
        call.cancel()


async def _stream_games(
    stub: Any, games: _Games, subscribers: int, window: Window, outcome: Outcome, rng: random.Random
) -> None:
    """Plays games (unary) while `subscribers` spectators follow each of them."""
    while not window.over():
        game = await games.next()
        followers = [asyncio.create_task(_subscribe(stub, game, window, outcome)) for _ in range(subscribers)]
        moves = Outcome()
        await _unary_game(stub, game, window, moves, rng)
        outcome.moves += moves.count
        outcome.rpcs += moves.rpcs
        await asyncio.gather(*followers, return_exceptions=True)


async def _run_grpc(job: Job, window: Window, ready: Callable[[], Awaitable[None]]) -> Outcome:
    outcome = Outcome()
    rng = random.Random(job.seed)
    # Each channel its own TCP connection (no shared subchannel): SO_REUSEPORT spreads
    # connections, not calls, between a server's workers.
    options = [("grpc.max_receive_message_length", 16 << 20), ("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(job.target, options=options) for _ in range(max(job.channels, 1))]
    try:
        for channel in channels:
            await channel.channel_ready()
        stubs = [game_service_pb2_grpc.GameServiceStub(channel) for channel in channels]
        stub = stubs[0]
        bots = job.bots or job.mode.endswith("-bot")
        if job.mode == "create":
            limit = asyncio.Semaphore(CREATE_CONCURRENCY)

            async def create() -> NewGame:
                async with limit:
                    return await _create_grpc(stub, job.kind, bots)

            outcome.created = list(await asyncio.gather(*(create() for _ in range(job.count))))
            return outcome
        await ready()
        games = _Games(job, lambda: _create_grpc(stub, job.kind, bots), window, outcome)
        tasks: list[Awaitable[None]] = []
        for index in range(job.concurrency):
            slot_stub = stubs[index % len(stubs)]
            if job.mode in ("echo", "stream-echo"):
                echo = diagnostics_pb2_grpc.DiagnosticsServiceStub(channels[index % len(channels)])
                tasks.append((_echo if job.mode == "echo" else _stream_echo)(echo, window, outcome))
            elif job.mode in ("unary", "unary-bot"):
                tasks.append(_unary_games(slot_stub, games, window, outcome, rng))
            elif job.mode in ("play", "play-bot"):
                tasks.append(_play_games(slot_stub, games, window, outcome, rng))
            elif job.mode == "stream":
                tasks.append(_stream_games(slot_stub, games, job.subscribers, window, outcome, rng))
            else:
                raise ValueError(f"unknown mode {job.mode!r}")
        await _until_window_ends(tasks, window, outcome)
    finally:
        for channel in channels:
            await channel.close()
    return outcome


async def _until_window_ends(tasks: list[Awaitable[None]], window: Window, outcome: Outcome) -> None:
    """Runs the tasks; those still waiting for an answer when the window ends are
    cancelled (their calls do not count)."""
    running = [asyncio.ensure_future(task) for task in tasks]
    await asyncio.wait(running, timeout=max(window.end - time.time(), 0) + 0.05)
    for task in running:
        task.cancel()
    for result in await asyncio.gather(*running, return_exceptions=True):
        if isinstance(result, Exception):
            outcome.errors += 1


# --- REST --------------------------------------------------------------------------


async def _rest_games(
    session: aiohttp.ClientSession, base: str, job: Job, games: _Games, window: Window, outcome: Outcome
) -> None:
    rng = random.Random(job.seed)
    while not window.over():
        game = await games.next()
        await _rest_game(session, base, game, window, outcome, rng)


async def _rest_get(session: aiohttp.ClientSession, base: str, game: NewGame, seat: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {game.tokens[seat]}"}
    async with session.get(f"{base}/v1/games/{game.game_id}", headers=headers) as response:
        response.raise_for_status()
        return await response.json()  # type: ignore[no-any-return]


async def _rest_game(
    session: aiohttp.ClientSession, base: str, game: NewGame, window: Window, outcome: Outcome, rng: random.Random
) -> None:
    seat = game.first_seat
    view = await _rest_get(session, base, game, seat)
    outcome.rpcs += window.open(time.time())
    legal: list[Any] = view["legalCommands"]
    while not window.over():
        body = json.dumps({"command": rng.choice(legal), "commandId": uuid.uuid4().hex})
        headers = {"Authorization": f"Bearer {game.tokens[seat]}", "Content-Type": "application/json"}
        sent = time.perf_counter()
        async with session.post(f"{base}/v1/games/{game.game_id}/commands", data=body, headers=headers) as response:
            response.raise_for_status()
            answer = await response.json()
        latency = time.perf_counter() - sent
        if window.open(time.time()):
            outcome.count += 1
            outcome.rpcs += 1
            outcome.latencies.append(latency)
        to_act = answer.get("toAct") or []
        if answer.get("status") == "GAME_STATUS_FINISHED" or not to_act:
            return
        if int(to_act[0]) == seat:
            legal = answer["legalCommands"]
        else:
            seat = int(to_act[0])
            legal = (await _rest_get(session, base, game, seat))["legalCommands"]
            outcome.rpcs += window.open(time.time())


async def _run_rest(job: Job, window: Window, ready: Callable[[], Awaitable[None]]) -> Outcome:
    outcome = Outcome()
    connector = aiohttp.TCPConnector(limit=job.concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def create() -> NewGame:
            body = json.dumps(
                {"kind": job.kind, "seats": [{"name": s.name, "age": s.age} for s in seats_for(job.kind)]}
            )
            headers = {"Content-Type": "application/json"}  # a write without it is refused (415)
            async with session.post(f"{job.http}/v1/games", data=body, headers=headers) as response:
                response.raise_for_status()
                created = await response.json()
            seats = tuple(range(len(created["seatTokens"])))
            return NewGame(created["gameId"], tuple(created["seatTokens"]), int(created["game"]["toAct"][0]), seats)

        await ready()
        games = _Games(job, create, window, outcome)
        tasks: list[Awaitable[None]] = [
            _rest_games(session, job.http, job, games, window, outcome) for _ in range(job.concurrency)
        ]
        await _until_window_ends(tasks, window, outcome)
    return outcome


async def _http_echo(session: aiohttp.ClientSession, job: Job, window: Window, outcome: Outcome) -> None:
    """Echo over Connect (binary protobuf) or REST (JSON), one call at a time."""
    if job.mode == "connect-echo":
        url = f"{job.http}/ludotheque.v1.DiagnosticsService/Echo"
        body = diagnostics_pb2.EchoRequest(payload=ECHO_PAYLOAD).SerializeToString()
        headers = {"Content-Type": "application/proto", "Connect-Protocol-Version": "1"}
    else:
        url = f"{job.http}/v1/diagnostics:echo"
        body = json.dumps({"payload": base64.b64encode(ECHO_PAYLOAD).decode()}).encode()
        headers = {"Content-Type": "application/json"}
    while not window.over():
        sent = time.perf_counter()
        async with session.post(url, data=body, headers=headers) as response:
            response.raise_for_status()
            await response.read()
        latency = time.perf_counter() - sent
        if window.open(time.time()):
            outcome.count += 1
            outcome.rpcs += 1
            outcome.latencies.append(latency)


async def _run_http_echo(job: Job, window: Window, ready: Callable[[], Awaitable[None]]) -> Outcome:
    outcome = Outcome()
    connector = aiohttp.TCPConnector(limit=job.concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        await ready()
        tasks: list[Awaitable[None]] = [_http_echo(session, job, window, outcome) for _ in range(job.concurrency)]
        await _until_window_ends(tasks, window, outcome)
    return outcome


# --- WebSocket ---------------------------------------------------------------------


async def create_rest(session: aiohttp.ClientSession, http: str, kind: str, bots: bool) -> NewGame:
    """A new game over REST (`bots`: one human seat, the server's bots the others)."""
    seats = seats_for(kind, bots)
    body = json.dumps(
        {"kind": kind, "seats": [{"name": s.name, "age": s.age, **({"bot": s.bot} if s.bot else {})} for s in seats]}
    )
    async with session.post(f"{http}/v1/games", data=body, headers=JSON_BODY) as response:
        response.raise_for_status()
        created = await response.json()
    humans = tuple(seat for seat, spec in enumerate(seats) if not spec.bot)
    return NewGame(created["gameId"], tuple(created["seatTokens"]), int(created["game"]["toAct"][0]), humans)


async def _ws_echo(session: aiohttp.ClientSession, http: str, window: Window, outcome: Outcome) -> None:
    async with session.ws_connect(f"{http}/v1/diagnostics/echo") as ws:
        while not window.over():
            sent = time.perf_counter()
            await ws.send_bytes(ECHO_PAYLOAD)
            await ws.receive_bytes()
            latency = time.perf_counter() - sent
            if window.open(time.time()):
                outcome.count += 1
                outcome.rpcs += 1
                outcome.latencies.append(latency)


async def _ws_play_games(
    session: aiohttp.ClientSession,
    http: str,
    games: _Games,
    window: Window,
    outcome: Outcome,
    rng: random.Random,
    think: float = 0.0,
) -> None:
    while not window.over():
        game = await games.next()
        seats = (_ws_play_seat(session, http, game, seat, window, outcome, rng, think) for seat in game.humans)
        await asyncio.gather(*seats)


async def _ws_play_seat(
    session: aiohttp.ClientSession,
    http: str,
    game: NewGame,
    seat: int,
    window: Window,
    outcome: Outcome,
    rng: random.Random,
    think: float = 0.0,
) -> None:
    async with session.ws_connect(f"{http}/v1/play", protocols=("ludotheque.v1.proto",)) as ws:
        join = game_service_pb2.PlayJoin(game_id=game.game_id, token=game.tokens[seat])
        await ws.send_bytes(game_service_pb2.PlayRequest(join=join).SerializeToString())

        async def read() -> game_service_pb2.PlayResponse | None:
            frame = await ws.receive()
            if frame.type is not aiohttp.WSMsgType.BINARY:
                return None
            return game_service_pb2.PlayResponse.FromString(frame.data)

        async def write(request: game_service_pb2.PlayRequest) -> None:
            await ws.send_bytes(request.SerializeToString())

        await _drive_session(read, write, window, outcome, rng, think)


async def _run_ws(job: Job, window: Window, ready: Callable[[], Awaitable[None]]) -> Outcome:
    outcome = Outcome()
    rng = random.Random(job.seed)
    bots = job.mode.endswith("-bot")
    connector = aiohttp.TCPConnector(limit=0)  # one connection per socket: no pooling limit
    async with aiohttp.ClientSession(connector=connector) as session:
        await ready()
        games = _Games(job, lambda: create_rest(session, job.http, job.kind, bots), window, outcome)
        tasks: list[Awaitable[None]] = []
        for _ in range(job.concurrency):
            if job.mode == "ws-echo":
                tasks.append(_ws_echo(session, job.http, window, outcome))
            else:
                tasks.append(_ws_play_games(session, job.http, games, window, outcome, rng, job.think))
        await _until_window_ends(tasks, window, outcome)
    return outcome


# --- the process -------------------------------------------------------------------


class LoadFailed(Exception):
    """A load process's job failed: the parent stops the benchmark with its reason."""


def serve_jobs(connection: Connection) -> None:
    """A load process's main: runs the jobs the parent sends until it sends None; a
    job that fails answers its error instead of an Outcome. One event loop for all
    of them: grpc.aio keeps state bound to its loop."""
    asyncio.run(_serve(connection))


async def _serve(connection: Connection) -> None:
    loop = asyncio.get_running_loop()
    while (job := await loop.run_in_executor(None, connection.recv)) is not None:
        try:
            connection.send(await _run_job(job, connection))
        except Exception as error:  # the parent reports it and stops
            connection.send(LoadFailed(f"{job.mode} job failed: {error!r}"))


async def _run_job(job: Job, connection: Connection) -> Outcome:
    window = Window(0.0, 0.0)

    async def ready() -> None:
        connection.send("ready")
        window.start, window.end = await asyncio.get_running_loop().run_in_executor(None, connection.recv)

    if job.mode == "rest":
        return await _run_rest(job, window, ready)
    if job.mode in ("connect-echo", "rest-echo"):
        return await _run_http_echo(job, window, ready)
    if job.mode.startswith("ws-"):
        return await _run_ws(job, window, ready)
    return await _run_grpc(job, window, ready)
