"""Catch-ups nobody reads, and followers past the cap.

Before: 100 WebSocket `Play` joins of ~300 bytes each (`fromVersion: 1`) to a
5,000-event game, never read, cost 9.5 s of server CPU and +82 MB of RSS: a client with
a deep receive buffer was sent the whole game (here: 1.16 MB a join, every event of a
2,900-event game, rendered and encoded). 1,500 WebSockets on one game were all
accepted. Now a WebSocket sends no more than `UNREAD_BYTES` past the client's last read
receipt (a pong: service/api/read_receipts.py), a catch-up goes a page of events a
message, and one seat's token opens at most `MAX_SEAT_FOLLOWERS` streams or sessions
of a game (its spectators are capped on every transport, as before)."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator

import pytest

from service.api.read_receipts import UNREAD_BYTES
from service.app.history.history import MAX_SEAT_FOLLOWERS
from tests.support.raw_websocket import CLOSE, RawWebSocket
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server
from tests.support.waiting import wait_until

SLOW_READER_CUTS = 'ludotheque_websocket_closes_total{code="4008"}'
DEEP_BUFFER = 4 << 20  # the receive buffer a hostile client asks for: megabytes, never read
FOLLOWERS = 3
BOTS = [{"name": f"Bot {i}", "bot": "random"} for i in range(3)]
LONG = 1500  # events: a long game's fewest


@pytest.fixture(scope="module")
def patient() -> Iterator[ServerProcess]:
    """A server that cuts a client who reads nothing after a second, with few spectators a game."""
    env = {"LUDOTHEQUE_WEBSOCKET_SEND_TIMEOUT": "1", "LUDOTHEQUE_MAX_FOLLOWERS_PER_GAME": str(FOLLOWERS)}
    with running_server(env=env) as process:
        yield process


def long_game(server: ServerProcess) -> tuple[str, int]:
    """A finished game of bots (thousands of events), and what its events weigh in JSON.
    Its random bots play 2,000 to 5,500 events, but about one game in a hundred fewer
    than LONG: another is played then (the game's seed is the server's to draw)."""
    for _ in range(10):
        created = Rest(server.http, ADMIN_TOKEN).post("/v1/games", {"kind": "pirates", "seats": BOTS}).json
        if int(created["game"]["version"]) > LONG:
            break
    assert int(created["game"]["version"]) > LONG, "a long game"
    game_id, weight, page = created["gameId"], 0, 1
    while page:
        reply = Rest(server.http).get(f"/v1/games/{game_id}/events?fromVersion={page}")
        weight += len(reply.body)
        page = int(reply.json.get("nextFromVersion") or 0)
    return game_id, weight


def metric(server: ServerProcess, sample: str) -> float:
    with urllib.request.urlopen(f"{server.http}/metrics", timeout=10) as response:
        found = re.search(rf"^{re.escape(sample)} (\S+)$", response.read().decode(), re.M)
    return float(found.group(1)) if found else 0.0


def join(server: ServerProcess, game_id: str, token: str = "") -> RawWebSocket:
    ws = RawWebSocket(
        "127.0.0.1", server.http_port, "/v1/play", protocol="ludotheque.v1.json", receive_buffer=DEEP_BUFFER
    )
    message = {"gameId": game_id, "fromVersion": 1, "views": True, "viewUpdates": True}
    ws.send_text(json.dumps({"join": {**message, "token": token} if token else message}))
    return ws


def drained(ws: RawWebSocket) -> int:
    """Every byte the server sent the socket, to its end (once the server closed it)."""
    total = 0
    while chunk := ws.sock.recv(1 << 20):
        total += len(chunk)
    ws.close()
    return total


def test_joins_that_never_read_a_long_game_are_sent_a_fixed_buffer_each(patient: ServerProcess, volume: int) -> None:
    game_id, weight = long_game(patient)
    cuts = metric(patient, SLOW_READER_CUTS)
    joins = [join(patient, game_id) for _ in range(FOLLOWERS)]  # spectators: as many as the game takes
    wait_until(lambda: metric(patient, SLOW_READER_CUTS) >= cuts + len(joins), 30, "the slow readers cut")
    sent = [drained(ws) for ws in joins]
    # What a client may hold unread, and one page of events beside it: not the game.
    assert max(sent) < UNREAD_BYTES + 96 * 1024, sent
    assert max(sent) * 4 < weight, (sent, weight)
    for more in range(1, volume):  # with --hostile-long: each join costs the same fixed buffer
        again = join(patient, game_id)
        done = cuts + len(joins) + more
        wait_until(lambda: metric(patient, SLOW_READER_CUTS) >= done, 30, "the next cut")  # noqa: B023
        assert drained(again) < UNREAD_BYTES + 96 * 1024


def test_the_follower_caps_hold_over_the_websocket(patient: ServerProcess) -> None:
    created = Rest(patient.http).post("/v1/games", {"kind": "mooki", "seats": [{"name": "Cléo"}, {"name": "Robin"}]})
    game_id, (cleo, _) = created.json["gameId"], created.json["seatTokens"]
    spectators = [join(patient, game_id) for _ in range(FOLLOWERS)]
    refused = _last_words(join(patient, game_id))
    assert "spectators" in refused, refused
    sessions = [join(patient, game_id, cleo) for _ in range(MAX_SEAT_FOLLOWERS)]  # a player's tabs are let in
    assert "already" in _last_words(join(patient, game_id, cleo))  # but not a thousand of one token's
    for ws in spectators + sessions:
        ws.close()


def _last_words(ws: RawWebSocket) -> str:
    """The error message of a session the server ended at once (its last frames)."""
    said = ""
    while (frame := ws.receive()) is not None and frame.opcode != CLOSE:
        said = json.loads(frame.payload).get("error", {}).get("message", said)
    ws.close()
    return said
