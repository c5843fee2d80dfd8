"""The honest player of the attack bench (attacks.py): Pirates against a greedy bot over
gRPC, `GetGame` then a move, again and again, from its own address (127.0.0.1: the
attackers come from others), each call's latency and each failed call's status noted.

It runs in a process of its own (processes.py), so that the attackers' threads never
hold its interpreter: what it measures is the server's answer, not the bench's GIL. Its
channel stays open from window to window, as a player's would."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

import grpc
from ludotheque import Client

from service.bench.percentiles import percentile
from service.bench.processes import Processes

KIND = "pirates"
SEATS: list[str | dict[str, str]] = ["Honest", {"name": "Greedy", "bot": "greedy"}]
MIN_CALLS = 6  # calls in a window at least (by default), however slow: a window always has its figures
TIMEOUT = 10.0  # seconds a call may take before it counts as failed


@dataclass(slots=True)
class Honest:
    """One window of the honest player: its calls' latencies (seconds), the status of
    each call that failed."""

    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def percentile(self, q: float) -> float:
        return percentile(self.latencies, q)

    @property
    def p50(self) -> float:
        return self.percentile(0.5)

    @property
    def p99(self) -> float:
        return self.percentile(0.99)


def _play(lobby: Client, seconds: float, least: int) -> Honest:
    """GetGame then a move, in a loop, for `seconds` (and `least` calls at least, or as
    many failed); a finished game (or a failed call) starts a new one."""
    honest = Honest()
    until = time.perf_counter() + seconds

    def more() -> bool:
        short = len(honest.latencies) < least and len(honest.failures) < least
        return time.perf_counter() < until or short

    while more():
        try:
            created = lobby.create_game(KIND, SEATS)
            seat = lobby.with_token(created.seat_tokens[0])
            while more():
                began = time.perf_counter()
                game = seat.get_game(created.game_id)
                honest.latencies.append(time.perf_counter() - began)
                if not game.legal_commands:
                    break  # over: a new game
                began = time.perf_counter()
                seat.submit(created.game_id, game.legal_commands[0])
                honest.latencies.append(time.perf_counter() - began)
        except grpc.RpcError as error:
            honest.failures.append(error.code().name)
    return honest


def _serve(connection: Connection) -> None:
    """The player's process: a window of play per order (target, seconds, least calls);
    None ends it."""
    lobby: Client | None = None
    while (order := connection.recv()) is not None:
        target, seconds, least = order
        if lobby is None:
            lobby = Client(target, retries=0, timeout=TIMEOUT)
        try:
            connection.send(_play(lobby, seconds, least))
        except Exception as error:  # the parent reports it, the bench stops
            connection.send(RuntimeError(f"the honest player failed: {error!r}"))
    if lobby is not None:
        lobby.close()


class HonestPlayer(Processes):
    """The honest player's process, kept for the whole run."""

    def __init__(self) -> None:
        super().__init__(_serve, 1)

    def play(self, target: str, seconds: float, least: int = MIN_CALLS) -> Honest:
        """A window of `seconds` of play against the server at `target` (`least` calls
        at least, however long they take)."""
        connection = self.connections[0]
        connection.send((target, seconds, least))
        answer = connection.recv()
        if isinstance(answer, Exception):
            raise answer
        if not isinstance(answer, Honest):
            raise RuntimeError(f"the honest player answered {answer!r}")
        return answer
