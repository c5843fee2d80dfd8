"""Playing games of any kind through real servers, and checking what they stored:
games created over REST, moves, a spectator following in the background, a Play
session's messages, the table changes of a game's history.

Kind-generic on purpose: seats come from the engine's min_seats, bots are "random",
moves are picked among the legal commands the server offers, so a game kind added to
engines/ (engines/registry.py) is covered without touching the tests."""

from __future__ import annotations

import random
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import json_format
from ludotheque import Client
from ludotheque.client import PlaySession
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.contract import fold
from engines.registry import GAMES, get_engine
from service.app.model import envelopes
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN

RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}


def short_game(kind: str) -> game_pb2.GameOptions | None:
    """Options that keep a test's game short, for kinds whose games run long by default
    (its registration's: a Pirates race to an island one space away, one round); None
    for the others."""
    short = GAMES[kind].proof.short_options
    return None if short is None else envelopes.options(kind, short)


def create_over_rest(rest: Rest, kind: str, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """A game of `kind` and `seats` created with POST /v1/games (kept short: see
    short_game), which must succeed; the answer (gameId, seatTokens, game...)."""
    body: dict[str, Any] = {"kind": kind, "seats": seats}
    options = short_game(kind)
    if options is not None:
        body["options"] = json_format.MessageToDict(options)
    reply = rest.post("/v1/games", body)
    assert reply.status == 200, reply.body
    return reply.json  # type: ignore[no-any-return]


def seats(kind: str, humans: int = 0) -> list[dict[str, str]]:
    """The fewest seats `kind` allows: the first `humans` played by the test, the rest random bots."""
    engine = get_engine(kind)
    assert engine is not None
    return [
        {"name": f"human-{i}"} if i < humans else {"name": f"bot-{i}", "bot": "random"} for i in range(engine.min_seats)
    ]


@dataclass
class Move:
    """A move chosen for the seat to act, with the command id every retry reuses."""

    game_id: str
    seat: int
    command: game_pb2.Command
    version: int  # the game's version when the move was chosen
    command_id: str = field(default_factory=lambda: uuid.uuid4().hex)


def next_move(client: Client, game_id: str, tokens: list[str], rng: random.Random) -> Move | None:
    """A legal move for a human seat whose turn it is; None when the game is over."""
    while True:  # others may move between the two reads: read again until they agree
        public = client.get_game(game_id)
        if public.status == game_pb2.GAME_STATUS_FINISHED:
            return None
        seat = next(s for s in public.to_act if s < len(tokens))
        mine = client.with_token(tokens[seat]).get_game(game_id)
        if mine.legal_commands:
            return Move(game_id, seat, rng.choice(list(mine.legal_commands)), mine.version)


def play_move(client: Client, move: Move, tokens: list[str]) -> int:
    """Plays `move`; the version after it."""
    return client.with_token(tokens[move.seat]).submit(move.game_id, move.command, command_id=move.command_id).version


def history(target: str, game_id: str) -> list[game_pb2.Event]:
    """Every event of the game, as the admin sees them (page after page)."""
    with Client(target, ADMIN_TOKEN) as admin:
        return admin.history(game_id)


def assert_replays_cleanly(target: str, game_id: str) -> list[game_pb2.Event]:
    """The game's history is one line (versions 1, 2, 3... with nothing missing or
    repeated), its engine replays it, and the game's version is its last event's."""
    events = history(target, game_id)
    assert [e.version for e in events] == list(range(1, len(events) + 1)), game_id
    with Client(target) as client:
        game = client.get_game(game_id)
    assert game.version == len(events)
    engine = get_engine(game.kind)
    assert engine is not None
    state = fold(engine, [envelopes.event_payload(e) for e in events])
    assert engine.status(state).finished == (game.status == game_pb2.GAME_STATUS_FINISHED)
    assert events[-1].game_over == engine.status(state).finished
    return events


def played_command_ids(events: list[game_pb2.Event], humans: set[int]) -> list[str]:
    """The command id of every move the human seats made (a move's first event carries
    the command; the bot moves it set off carry its command id too, under a bot's seat)."""
    return [e.command_id for e in events if e.HasField("command") and e.seat in humans]


def follow(client: Client, game_id: str, into: list[game_pb2.Event]) -> threading.Thread:
    """A spectator streaming the game's events into `into` on a thread of its own,
    until the stream ends (join the thread)."""
    thread = threading.Thread(target=lambda: into.extend(client.stream(game_id)), daemon=True)
    thread.start()
    return thread


def next_message(session: PlaySession, reader: ThreadPoolExecutor, timeout: float) -> api.PlayResponse:
    """The Play session's next message, read on `reader`'s thread so that the test fails
    when none comes within `timeout` seconds."""
    return reader.submit(next, session).result(timeout=timeout)


def presence_until(
    session: PlaySession, reader: ThreadPoolExecutor, online: list[int], timeout: float
) -> api.PlayResponse:
    """Reads the session until a presence message says exactly `online` are online;
    that message (each read within `timeout` seconds)."""
    while True:
        message = next_message(session, reader, timeout)
        if message.HasField("presence") and list(message.presence.online_seats) == online:
            return message


def table_changes(target: str, game_id: str) -> list[str]:
    """The kind of each table event (joined, left, timed_out...) in the game's history."""
    return [str(e.table.WhichOneof("change")) for e in history(target, game_id) if e.HasField("table")]
