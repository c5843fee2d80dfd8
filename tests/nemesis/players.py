"""The nemesis's load: players on real clients (ludotheque.Client over gRPC), each
playing two-seat Mooki games one after the other against whichever of the server
processes answers, and logging every acknowledgement they get (a game created, a move
with the versions its answer named) to a file of their own, one JSON line each. A
player's clients share what it was given (`known`): each call says the highest version
of the game it knows (`known_version`), whichever server gave it.

A move whose answer did not come (UNAVAILABLE, a timeout, the server killed) is sent
again with the same command id, on the other server if need be, until it is answered;
a move the game refuses now (the game moved on, or lost versions) is dropped and the
game read again. A game its players are told is lost (DATA_LOSS, or NOT_FOUND after
its creation was acknowledged) is left for a new one."""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import grpc
from ludotheque import Client
from ludotheque.v1 import game_pb2

from tests.nemesis.checker import Ack

T = TypeVar("T")

# Answers after which the same request is sent again (to the other server if need be).
AGAIN = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
GONE = {grpc.StatusCode.DATA_LOSS, grpc.StatusCode.NOT_FOUND}  # the game is lost
CALL_TIMEOUT = 5.0  # seconds a call may take (a frozen Redis answers UNAVAILABLE within ~1 s)
PAUSE = 0.05  # seconds between two tries of a request that got no answer


class Servers:
    """The server processes' gRPC targets, by index; a restarted one gets new ports."""

    def __init__(self, targets: list[str]) -> None:
        self._targets = list(targets)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._targets)

    def target(self, index: int) -> str:
        with self._lock:
            return self._targets[index % len(self._targets)]

    def moved(self, index: int, target: str) -> None:
        with self._lock:
            self._targets[index] = target


class GameLost(Exception):
    """The game's players were told it is gone (DATA_LOSS, NOT_FOUND)."""


class Stopped(Exception):
    """The run is over."""


class Player(threading.Thread):
    def __init__(self, number: int, servers: Servers, log_path: Path, stop: threading.Event, seed: int) -> None:
        super().__init__(name=f"player-{number}", daemon=True)
        self.number, self.servers, self.log_path, self.stop = number, servers, log_path, stop
        self.errors: list[str] = []  # answers no client should ever get (INTERNAL...)
        self.acknowledged = 0  # moves acknowledged so far
        self.last_ack = 0.0  # when (time.monotonic()) the last one came
        self._rng = random.Random(seed)
        self._server = number % len(servers)
        self._clients: dict[str, Client] = {}
        self.known: dict[str, int] = {}  # the highest version of each game it was given, on any server
        self.games: dict[str, list[str]] = {}  # the games it created, with their seats' tokens
        self._log = log_path.open("a")

    # --- the calls ---------------------------------------------------------------------

    def _client(self, token: str | None) -> Client:
        target = self.servers.target(self._server)
        client = self._clients.get(target)
        if client is None:
            client = self._clients[target] = Client(target, retries=0, timeout=CALL_TIMEOUT, known=self.known)
        return client.with_token(token)

    def call(self, token: str | None, request: Callable[[Client], T], *, stoppable: bool = True) -> T:
        """`request` until it is answered (the other server after a failure)."""
        while True:
            if stoppable and self.stop.is_set():
                raise Stopped
            try:
                return request(self._client(token))
            except grpc.RpcError as error:
                code = error.code()
                if code in GONE:
                    raise GameLost(code.name) from error
                if code not in AGAIN:
                    if code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN):
                        self.errors.append(f"{code.name}: {error.details()}")
                    raise
                self._server += 1
                time.sleep(PAUSE)  # then the same request again

    def note(self, **fields: Any) -> None:
        line = {"t": time.monotonic(), "wall": round(time.time(), 3), "player": self.number, **fields}
        self._log.write(json.dumps(line) + "\n")
        self._log.flush()

    # --- playing -----------------------------------------------------------------------

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                game_id, tokens = self._create()
                try:
                    while self._move(game_id, tokens):
                        pass
                except GameLost as lost:
                    self.note(kind="lost", game=game_id, code=str(lost))
        except Stopped:
            pass

    def come_back(self) -> None:
        """Once the run is over: reads every game played again, as a player coming back
        to it would (saying the highest version it was given, on whichever server)."""
        for game_id, tokens in self.games.items():
            with contextlib.suppress(GameLost):
                self.call(tokens[0], lambda client, game_id=game_id: client.get_game(game_id), stoppable=False)  # type: ignore[misc]

    def close(self) -> None:
        self._log.close()
        for client in self._clients.values():
            client.close()

    def _create(self) -> tuple[str, list[str]]:
        seats = [{"name": "Cléo"}, {"name": "Robin"}]
        created = self.call(None, lambda client: client.create_game("mooki", seats))
        self.note(kind="created", game=created.game_id, version=created.game.version)
        self.games[created.game_id] = list(created.seat_tokens)
        return created.game_id, list(created.seat_tokens)

    def _move(self, game_id: str, tokens: list[str]) -> bool:
        """Plays one move; False once the game is over."""
        public = self.call(None, lambda client: client.get_game(game_id))
        if public.status == game_pb2.GAME_STATUS_FINISHED:
            return False
        seat = public.to_act[0]
        mine = self.call(tokens[seat], lambda client: client.get_game(game_id))
        if not mine.legal_commands:
            return True  # moved meanwhile: read again
        command = self._rng.choice(list(mine.legal_commands))
        command_id = uuid.UUID(int=self._rng.getrandbits(128)).hex
        try:
            answer = self.call(tokens[seat], lambda client: client.submit(game_id, command, command_id=command_id))
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                return True  # no longer legal, or versions lost: read the game again
            raise
        self.note(
            kind="ack",
            game=game_id,
            command=command_id,
            events=[[event.version, event.command_id] for event in answer.events],
            replayed=answer.replayed,
        )
        self.acknowledged += 1
        self.last_ack = time.monotonic()
        return True


def read_logs(paths: list[Path]) -> tuple[list[str], list[Ack], list[dict[str, Any]]]:
    """The games created, the moves acknowledged, and every line, from the players' logs."""
    created: list[str] = []
    acks: list[Ack] = []
    lines: list[dict[str, Any]] = []
    for path in paths:
        for text in path.read_text().splitlines():
            line = json.loads(text)
            lines.append(line)
            if line["kind"] == "created":
                created.append(line["game"])
            elif line["kind"] == "ack":
                events = tuple((int(version), str(command)) for version, command in line["events"])
                acks.append(Ack(line["game"], line["command"], events, line["replayed"]))
    return created, acks, lines
