"""The crowd's side of the capacity benchmark: a load process of its own holding
thousands of seats, each on its own WebSocket `Play` session with presence and view
updates (as the web app joins), idle or moving at a human pace.

The parent (service/bench/capacity.py) sends one order at a time over a pipe and
waits for its answer:
- `Games(http, kind, count, seed)`: make that many two-seat games (REST);
- `Join()`: join every seat of them; answered once each seat has had its first message;
- `Pace(warm, start, end, low, high)`: from `warm` to `end` (wall clock), a seat whose
  turn it is plays a random legal command `low`–`high` seconds after its turn came (0,
  0: at once, flat out); answered with what happened from `start` on;
- `Leave()`: every seat closes its socket; None: the process ends.
A game that ends inside a window is replaced by a new one, its two seats joined."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import aiohttp
from ludotheque.v1 import game_pb2, game_service_pb2

from service.bench.load import CREATE_CONCURRENCY, create_rest

# Joins in flight at once by one process: a crowd arriving, not one stampede (a burst
# of thousands of joins at once queues for the store's connections until some time out).
JOIN_CONCURRENCY = 8


@dataclass(frozen=True, slots=True)
class Games:
    """Make `count` two-seat games (REST), kept to be joined."""

    http: str
    kind: str
    count: int
    seed: int


@dataclass(frozen=True, slots=True)
class Join:
    """Join every seat of the games made."""


@dataclass(frozen=True, slots=True)
class Pace:
    warm: float  # wall clock: seats play from then on
    start: float  # what happens from then on is counted
    end: float
    low: float  # seconds from a turn to its move
    high: float


@dataclass(frozen=True, slots=True)
class Leave:
    pass


@dataclass(slots=True)
class Joined:
    seats: int  # joined: their first message was no error
    seconds: float  # to join them
    refused: int = 0  # seats whose join was answered with an error (they left)


@dataclass(slots=True)
class Paced:
    moves: int = 0  # results received inside the window
    latencies: list[float] = field(default_factory=list)  # seconds, command sent to its result
    errors: int = 0  # results with an error, sessions that failed
    games_replaced: int = 0  # games that ended inside the window, replaced by new ones


class Window:
    def __init__(self, pace: Pace) -> None:
        self.pace = pace

    def open(self) -> bool:
        return self.pace.start <= time.time() < self.pace.end

    def playing(self) -> bool:
        return self.pace.warm <= time.time() < self.pace.end

    def delay(self, rng: random.Random, *, first: bool = False) -> float:
        """A pause before a move; `first`: the window's first, drawn over the mean pause
        (the games' moves spread out at once, as a crowd that has been playing a while)."""
        if first:
            return rng.uniform(0, (self.pace.low + self.pace.high) / 2)
        return rng.uniform(self.pace.low, self.pace.high)


class SeatSession:
    """One seat's WebSocket Play session: it keeps the legal commands of its turn and
    plays one when the window says so."""

    def __init__(self, crowd: Crowd, ws: aiohttp.ClientWebSocketResponse, game_id: str) -> None:
        self.crowd = crowd
        self.ws = ws
        self.game_id = game_id
        self.legal: list[game_pb2.Command] = []  # its turn's, until it plays
        self.sent: dict[str, float] = {}  # command id -> when it was sent
        self.first = asyncio.Event()
        self.refused = False  # its first message was an error
        self.over = False
        self.reader = asyncio.create_task(self.read())
        self.mover: asyncio.Task[None] | None = None

    async def read(self) -> None:
        async for frame in self.ws:
            if frame.type is not aiohttp.WSMsgType.BINARY:
                break
            self.receive(game_service_pb2.PlayResponse.FromString(frame.data))
        self.first.set()  # a session that ended before its first message still joined

    def receive(self, message: game_service_pb2.PlayResponse) -> None:
        if not self.first.is_set():
            self.refused = message.HasField("error")
            self.first.set()
        crowd = self.crowd
        if message.events and message.events[-1].game_over:
            self.over = True
        if message.HasField("result"):
            started = self.sent.pop(message.result.command_id, None)
            if crowd.window is not None and crowd.window.open() and started is not None:
                if message.result.HasField("error"):
                    crowd.paced.errors += 1
                else:
                    crowd.paced.moves += 1
                    crowd.paced.latencies.append(time.perf_counter() - started)
        if message.HasField("turn"):
            self.legal = list(message.turn.legal_commands)
            self.schedule()
        if self.over:
            crowd.ended(self)

    def schedule(self, *, first: bool = False) -> None:
        """Plays the turn it holds after a human's pause, if a window is open."""
        window = self.crowd.window
        if not self.legal or window is None or self.mover is not None or self.over:
            return
        self.mover = asyncio.create_task(self.move(window.delay(self.crowd.rng, first=first)))

    async def move(self, delay: float) -> None:
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            window = self.crowd.window
            if window is None or not window.playing() or not self.legal:
                return
            command = self.crowd.rng.choice(self.legal)
            self.legal = []
            command_id = uuid.uuid4().hex
            self.sent[command_id] = time.perf_counter()
            request = game_service_pb2.PlayRequest(
                command=game_service_pb2.PlayCommand(command=command, command_id=command_id)
            )
            await self.ws.send_bytes(request.SerializeToString())
        finally:
            self.mover = None

    async def close(self) -> None:
        if self.mover is not None:
            self.mover.cancel()
        await self.ws.close()
        await asyncio.gather(self.reader, return_exceptions=True)


class Crowd:
    """The seats one load process holds."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self.session = session
        self.seats: list[SeatSession] = []
        self.window: Window | None = None
        self.paced = Paced()
        self.rng = random.Random(0)
        self.order: Games | None = None
        self.made: list[tuple[str, list[str]]] = []  # games made, not joined yet
        self.refused = 0  # seats of games left because a seat's join failed
        self.by_game: dict[str, list[SeatSession]] = {}
        self.background: set[asyncio.Task[None]] = set()
        self.joins = asyncio.Semaphore(JOIN_CONCURRENCY)

    async def games(self, order: Games) -> Joined:
        started = time.monotonic()
        self.order, self.rng = order, random.Random(order.seed)
        creations = asyncio.Semaphore(CREATE_CONCURRENCY)

        async def one() -> tuple[str, list[str]]:
            async with creations:
                return await self.create()

        self.made = list(await asyncio.gather(*(one() for _ in range(order.count))))
        return Joined(0, time.monotonic() - started)

    async def join_all(self) -> Joined:
        started = time.monotonic()
        self.refused = 0
        await asyncio.gather(*(self.join(game_id, tokens) for game_id, tokens in self.made))
        self.made = []
        return Joined(len(self.seats), time.monotonic() - started, self.refused)

    async def create(self) -> tuple[str, list[str]]:
        assert self.order is not None
        created = await create_rest(self.session, self.order.http, self.order.kind, False)
        return created.game_id, list(created.tokens)

    async def join(self, game_id: str, tokens: list[str]) -> list[SeatSession]:
        assert self.order is not None
        joined: list[SeatSession] = []
        async with self.joins:
            for token in tokens:
                ws = await self.session.ws_connect(
                    f"{self.order.http}/v1/play", protocols=("ludotheque.v1.proto",), max_msg_size=16 << 20
                )
                join = game_service_pb2.PlayJoin(game_id=game_id, token=token, view_updates=True, presence=True)
                await ws.send_bytes(game_service_pb2.PlayRequest(join=join).SerializeToString())
                seat = SeatSession(self, ws, game_id)
                joined.append(seat)
                self.seats.append(seat)
            self.by_game[game_id] = joined
            for seat in joined:
                await seat.first.wait()
        if any(seat.refused or seat.reader.done() for seat in joined):  # the game is left: a seat could not join
            self.by_game.pop(game_id, None)
            for seat in joined:
                self.seats.remove(seat)
                self.refused += 1
                await seat.close()
            return []
        return joined

    def ended(self, seat: SeatSession) -> None:
        """A game ended: its seats leave, and inside a window a new game takes its place."""
        seats = self.by_game.pop(seat.game_id, None)
        if seats is None:  # its other seat saw the end first
            return
        for one in seats:
            self.seats.remove(one)
            self.track(one.close())
        if self.window is not None and self.window.playing():
            self.paced.games_replaced += self.window.open()
            self.track(self.replace())

    def track(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def replace(self) -> None:
        game_id, tokens = await self.create()
        for seat in await self.join(game_id, tokens):
            seat.schedule()

    async def pace(self, order: Pace) -> Paced:
        self.window, self.paced = Window(order), Paced()
        while time.time() < order.warm:
            await asyncio.sleep(order.warm - time.time())
        for seat in list(self.seats):
            seat.schedule(first=True)
        while time.time() < order.end:
            await asyncio.sleep(order.end - time.time())
        self.window = None
        paced = self.paced
        paced.errors += sum(1 for seat in self.seats if seat.reader.done() and not seat.over)
        return paced

    async def leave(self) -> None:
        await asyncio.gather(*(seat.close() for seat in self.seats), *self.background, return_exceptions=True)
        self.seats, self.by_game = [], {}


def serve_crowd(connection: Connection) -> None:
    """A crowd process's main: obeys the parent's orders until it sends None."""
    asyncio.run(_serve(connection))


async def _serve(connection: Connection) -> None:
    loop = asyncio.get_running_loop()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        crowd = Crowd(session)
        while (order := await loop.run_in_executor(None, connection.recv)) is not None:
            try:
                if isinstance(order, Games):
                    connection.send(await crowd.games(order))
                elif isinstance(order, Join):
                    connection.send(await crowd.join_all())
                elif isinstance(order, Pace):
                    connection.send(await crowd.pace(order))
                else:
                    await crowd.leave()
                    connection.send(Joined(0, 0.0))
            except Exception as error:  # the parent reports it and stops
                connection.send(RuntimeError(f"{type(order).__name__} failed: {error!r}"))
