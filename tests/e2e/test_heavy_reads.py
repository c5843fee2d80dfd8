"""Heavy reads in a real server (issue 42, item 1): the export of a long game over HTTP is
made by a worker process of the server's (`--heavy-workers`), and a finished game's again
is served from those kept; the import of a long log is verified by a worker and answers as
before, a flood of imports past the budget is refused with 429 and Retry-After; a long
catch-up is prepared by a worker and meets the live events with no gap and no repeat
(that a worker's answer is the loop's: test_heavy_reads.py in tests/service)."""

from __future__ import annotations

import json
import math
import random
import re
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ludotheque import Client
from ludotheque.v1 import game_pb2

from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

BOTS = [{"name": f"Bot {i}", "bot": "random"} for i in range(3)]  # (long games: thousands of events)
SERVED = 'ludotheque_heavy_reads_total{outcome="served",read="ExportGame"}'
KEPT = "ludotheque_export_cache_hits_total"
IMPORTED = 'ludotheque_heavy_reads_total{outcome="served",read="ImportGame"}'
CAUGHT_UP = 'ludotheque_heavy_reads_total{outcome="served",read="CatchUp"}'
FLOOD = 6  # imports at once, for one worker and no room to wait
IMPORT_BODY = 1 << 20  # the most ImportGame takes


def metric(server: ServerProcess, sample: str) -> float:
    with urllib.request.urlopen(f"{server.http}/metrics", timeout=10) as response:
        found = re.search(rf"^{re.escape(sample)} (\S+)$", response.read().decode(), re.M)
    return float(found.group(1)) if found else 0.0


def exported(server: ServerProcess) -> tuple[dict[str, object], dict[str, object]]:
    """A long game of bots, created by the admin, and its export as seat 1 sees it (twice)."""
    admin = Rest(server.http, ADMIN_TOKEN)
    created = admin.post("/v1/games", {"kind": "pirates", "seats": BOTS}).json
    assert int(created["game"]["version"]) > 300  # past --heavy-read-events
    path = f"/v1/games/{created['gameId']}:export?asSeat=1"
    return admin.get(path).json, admin.get(path).json


def test_a_long_export_is_made_by_a_worker_once() -> None:
    with running_server() as server:
        first, again = exported(server)
        assert first == again
        assert metric(server, SERVED) == 1 and metric(server, KEPT) == 1
        assert metric(server, "ludotheque_heavy_reads_in_flight") == 0


def test_a_long_import_is_verified_by_a_worker_and_a_flood_of_them_is_refused() -> None:
    with running_server(env={"LUDOTHEQUE_HEAVY_WORKERS": "1", "LUDOTHEQUE_HEAVY_WAITING": "0"}) as server:
        admin = Rest(server.http, ADMIN_TOKEN)
        exported, log = importable_log(admin)
        imported = admin.post("/v1/games:import", {"log": log})
        assert imported.status == 200, imported.body
        assert metric(server, IMPORTED) == 1  # verified in a worker: the loop served other calls meanwhile
        again = admin.get(f"/v1/games/{imported.json['gameId']}:export").json["log"]
        assert without_ids(again) == without_ids(exported)  # (its words made again)
        with ThreadPoolExecutor(FLOOD) as callers:
            replies = list(callers.map(lambda _: admin.post("/v1/games:import", {"log": log}), range(FLOOD)))
        refused = [reply for reply in replies if reply.status == 429]
        assert refused and all(reply.headers["retry-after"] == "1" for reply in refused)
        assert all(reply.status in (200, 429) for reply in replies), [reply.status for reply in replies]
        assert "HEAVY_READS" in refused[0].body.decode()
        assert metric(server, IMPORTED) == 1 + FLOOD - len(refused)
        assert metric(server, 'ludotheque_heavy_reads_total{outcome="refused_total",read="ImportGame"}') == len(refused)


def importable_log(admin: Rest) -> tuple[dict[str, Any], dict[str, Any]]:
    """The log of a long game of bots (past --heavy-read-events), and the same without
    its words (an import drops them), that fits in an import's body."""
    for _ in range(10):  # (the random bots play 2,000 to 5,500 events: a shorter game fits)
        created = admin.post("/v1/games", {"kind": "pirates", "seats": BOTS}).json
        exported = admin.get(f"/v1/games/{created['gameId']}:export").json["log"]
        log = json.loads(json.dumps(exported))
        for event in log["events"]:
            event.pop("description", None)
            event.get("command", {}).pop("description", None)
            event.get("command", {}).pop("choices", None)
        if len(json.dumps({"log": log})) < IMPORT_BODY:
            assert len(log["events"]) > 300
            return exported, log
    raise AssertionError("no game of bots short enough to import")


def without_ids(log: dict[str, Any]) -> dict[str, Any]:
    header = {key: value for key, value in log["header"].items() if key not in ("gameId", "createdAt")}
    return {**log, "header": header}


def test_a_long_catch_up_is_prepared_by_a_worker_and_meets_the_live_events() -> None:
    env = {"LUDOTHEQUE_HEAVY_CATCH_UP_EVENTS": "8", "LUDOTHEQUE_HEAVY_CATCH_UP_CHUNK": "5"}
    with running_server(env=env) as server, Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "age": 38}])
        seats = [lobby.with_token(token) for token in created.seat_tokens]
        version = play(lobby, seats, created.game_id, 10)
        follower = seats[0].stream(created.game_id, from_version=1)
        got = [next(follower)]
        after = play(lobby, seats, created.game_id, 3)  # the game moves as its follower catches up
        while got[-1].version < after:
            got.append(next(follower))
        follower.close()
        assert [event.version for event in got] == list(range(1, after + 1))  # each once, in order
        assert metric(server, CAUGHT_UP) >= math.ceil(version / 5)
        # Server-sent events, a spectator's, from the start: what ListEvents pages say.
        rest = Rest(server.http)
        listed = rest.get(f"/v1/games/{created.game_id}/events").json["events"]
        streamed = []
        for _, _, data in rest.events(f"/v1/games/{created.game_id}/events:stream?fromVersion=1"):
            streamed.append(data["event"])
            if len(streamed) == len(listed):
                break  # (the game goes on: its stream would wait for the next move)
        assert streamed == listed


def play(lobby: Client, seats: list[Client], game_id: str, moves: int) -> int:
    """`moves` random legal moves (the game must last); the game's version after them."""
    rng = random.Random(moves)
    for _ in range(moves):
        game = lobby.get_game(game_id)
        assert game.status != game_pb2.GAME_STATUS_FINISHED
        seat = seats[game.to_act[0]]
        seat.submit(game_id, rng.choice(list(seat.get_game(game_id).legal_commands)))
    return int(lobby.get_game(game_id).version)
