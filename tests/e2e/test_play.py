"""The Play RPC end to end: a seat's session on one bidirectional stream."""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import grpc
import pytest
from ludotheque import Client
from ludotheque.client import PlaySession
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.registry import ENGINES
from tests.support.games import short_game
from tests.support.server import ServerProcess


@dataclass
class Received:
    """What a session received, part by part, in reading order."""

    events: list[game_pb2.Event] = field(default_factory=list)
    results: list[api.PlayResult] = field(default_factory=list)
    turns: list[api.PlayTurn] = field(default_factory=list)
    messages: int = 0

    def take(self, message: api.PlayResponse) -> None:
        self.messages += 1
        self.events.extend(message.events)
        if message.HasField("result"):
            self.results.append(message.result)
        if message.HasField("turn"):
            self.turns.append(message.turn)


def read_until(session: PlaySession, done: Callable[[Received], bool]) -> Received:
    received = Received()
    while not done(received):
        received.take(next(session))
    return received


@pytest.mark.parametrize("kind", sorted(ENGINES))
def test_a_whole_game_through_one_play_session(server: ServerProcess, kind: str) -> None:
    engine = ENGINES[kind]
    seats = [{"name": "Human"}] + [{"name": f"Bot {i}", "bot": "random"} for i in range(1, max(engine.min_seats, 2))]
    with Client(server.target) as lobby:
        created = lobby.create_game(kind, seats[: engine.max_seats], short_game(kind))
        human = lobby.with_token(created.seat_tokens[0])
        rng = random.Random(8)
        seen: list[game_pb2.Event] = []
        sent: dict[str, int] = {}
        results = messages = 0
        with human.play(created.game_id) as session:
            for message in session:
                messages += 1
                seen.extend(message.events)  # a message reads: events, result, turn
                if message.HasField("result"):
                    result = message.result
                    assert not result.HasField("error"), result.error
                    assert result.command_id in sent and result.version > sent[result.command_id]
                    assert seen[-1].version >= result.version  # its events came first
                    results += 1
                if seen and seen[-1].game_over:
                    break
                if message.HasField("turn"):
                    assert message.turn.version == seen[-1].version  # at rest after the last event
                    command_id = session.send(rng.choice(list(message.turn.legal_commands)))
                    sent[command_id] = message.turn.version
        assert results >= len(sent) - 1  # the last result may follow the game's last event
        assert seen == human.history(created.game_id)  # all of it, in order
        # What is ready at once travels together: far fewer messages than parts.
        assert messages < (len(seen) + results + len(sent)) * 2 / 3


def test_a_refused_command_is_a_result_with_an_error_and_the_session_goes_on(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        cleo, robin = (lobby.with_token(t) for t in created.seat_tokens)
        with robin.play(created.game_id) as session:
            first = next(session)
            assert [e.version for e in first.events] == [1]  # the deal; no turn: it is Cléo's
            assert not first.HasField("turn")
            session.send(mooki.Command(draw=mooki.Draw(pile=0)), command_id="too-early")
            refused = next(session)
            assert not refused.events and not refused.HasField("turn")
            assert refused.result.command_id == "too-early"
            assert refused.result.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
            cleo.submit(created.game_id, mooki.Command(draw=mooki.Draw(pile=0)))
            cleo.submit(created.game_id, mooki.Command(place=mooki.Place(side=mooki.SIDE_SHOWN)))
            # Cléo's moves reach Robin's session, and then it is his turn.
            received = read_until(session, lambda r: bool(r.turns))
            assert [e.version for e in received.events] == [2, 3] and not received.results
            turn = received.turns[0]
            assert turn.version == 3 and {c.mooki.WhichOneof("action") for c in turn.legal_commands} == {"draw"}
            session.send(turn.legal_commands[0], command_id="r1")
            received = read_until(session, lambda r: bool(r.results and r.turns))
            assert [e.version for e in received.events] == [4]
            assert received.results[0].version == 4 and received.turns[0].version == 4  # place what he drew
            session.send(turn.legal_commands[0], command_id="r1")  # the same id again: replayed
            again = next(session)
            assert again.result.replayed and not again.events and not again.HasField("turn")


def test_joining_with_views_and_from_a_version(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", {"name": "Robin", "bot": "greedy"}])
        cleo = lobby.with_token(created.seat_tokens[0])
        cleo.submit(created.game_id, mooki.Command(draw=mooki.Draw(pile=1)))
        with cleo.play(created.game_id, from_version=2, views=True) as session:
            received = read_until(session, lambda r: bool(r.turns))
            event = received.events[0]
            assert event.version == 2 and event.mooki.card_drawn.HasField("hidden")  # her own card
            assert received.turns[0].view.mooki.drawn.HasField("hidden")


def test_a_session_must_start_with_a_join_and_a_valid_token(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        with pytest.raises(grpc.RpcError) as refused:
            request = api.PlayRequest(command=api.PlayCommand(command=game_pb2.Command()))
            next(iter(lobby.stub.Play(iter([request]))))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as refused, lobby.with_token("0.forged").play(created.game_id) as session:
            next(session)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as refused, lobby.play("no-such-game") as session:
            next(session)
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_session_ends_once_the_client_has_finished_sending(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", {"name": "Robin", "bot": "greedy"}])
        cleo = lobby.with_token(created.seat_tokens[0])
        with cleo.play(created.game_id) as session, ThreadPoolExecutor(1) as reader:
            first = next(session)
            session.send(first.turn.legal_commands[0], command_id="last")
            session.finish()  # a half-close: the stream must end after the command's result
            received = Received()
            reader.submit(lambda: list(map(received.take, session))).result(timeout=10)
        assert [result.command_id for result in received.results] == ["last"]
        assert received.events[-1].version >= received.results[0].version
