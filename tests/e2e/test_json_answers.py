"""Large answers written as JSON in a heavy worker, in a real server (issue 42, item 1): REST's
and Connect's JSON of every heavy RPC is, byte for byte, what the loop writes
(`json_answers.as_json` of the same answer in protobuf), whether written in a worker or on the
loop; the writing is a heavy read of its caller's (`read="<RPC> as JSON"`), refused past the
budget with 429 and Retry-After; a finished game's export's JSON is written once and served
again from the bytes kept."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from google.protobuf import json_format
from google.protobuf.message import Message
from ludotheque.v1 import game_service_pb2 as api

from service.app.model.json_answers import as_json
from tests.e2e.test_heavy_reads import BOTS, metric
from tests.support.connect import Connect
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

FLOOD = 8  # REST exports of a finished game at once, for one worker and no room to wait


def served(server: ServerProcess, method: str, outcome: str = "served") -> float:
    return metric(server, f'ludotheque_heavy_reads_total{{outcome="{outcome}",read="{method} as JSON"}}')


def long_game(admin: Rest) -> str:
    created = admin.post("/v1/games", {"kind": "pirates", "seats": BOTS}).json
    assert int(created["game"]["version"]) > 300  # (a finished game of bots: a large export)
    return str(created["gameId"])


def calls(connect: Connect, game_id: str) -> list[tuple[str, str, Message]]:
    """(method, its REST path, its request): every heavy RPC of a finished game, and a light one."""
    exported = connect.unary("ExportGame", api.ExportGameRequest(game_id=game_id))
    assert isinstance(exported, api.ExportGameResponse)
    log = exported.log
    del log.events[40:]  # (a prefix of a log is a log: short enough for ReplayLog's body)
    page = api.ListEventsRequest(game_id=game_id, page_size=1000)
    return [
        ("ExportGame", f"/v1/games/{game_id}:export?asSeat=1", api.ExportGameRequest(game_id=game_id, as_seat=1)),
        ("ListEvents", f"/v1/games/{game_id}/events?pageSize=1000", page),
        ("ReplayGame", f"/v1/games/{game_id}/replay?atVersion=7", api.ReplayGameRequest(game_id=game_id, at_version=7)),
        ("ReplayLog", "/v1/logs:replay", api.ReplayLogRequest(log=log, as_seat=0)),
        ("GetGame", f"/v1/games/{game_id}", api.GetGameRequest(game_id=game_id)),
    ]


def check_bytes(server: ServerProcess, method: str, path: str, request: Message) -> bytes:
    """REST's and Connect's JSON answers to `request` are the loop's writing of its protobuf
    answer (Connect's `application/proto`); REST's bytes."""
    admin, connect = Rest(server.http, ADMIN_TOKEN), Connect(server.http, ADMIN_TOKEN)
    answer = connect.unary(method, request)
    assert isinstance(answer, Message), answer
    posted = path.startswith("/v1/logs")
    rest = admin.post(path, json_format.MessageToDict(request)) if posted else admin.get(path)
    assert rest.status == 200, rest.body
    assert rest.headers["content-type"] == "application/json; charset=utf-8"
    assert rest.body == as_json(answer, "rest"), method
    body = json_format.MessageToJson(request).encode()
    over_connect = connect.post(method, body, "application/json", {"Connect-Protocol-Version": "1"})
    assert over_connect.status == 200, over_connect.body
    assert over_connect.body == as_json(answer, "connect"), method
    return rest.body


def test_every_heavy_answer_written_in_a_worker_is_the_loops_json() -> None:
    with running_server(env={"LUDOTHEQUE_HEAVY_JSON_BYTES": "1"}) as server:  # (every answer: in a worker)
        admin, connect = Rest(server.http, ADMIN_TOKEN), Connect(server.http, ADMIN_TOKEN)
        for method, path, request in calls(connect, long_game(admin)):
            check_bytes(server, method, path, request)
            assert served(server, method) >= 2, method  # REST's and Connect's, each in a worker


def test_a_large_answer_leaves_the_loop_a_small_one_does_not_and_a_finished_export_is_written_once() -> None:
    with running_server() as server:  # (--heavy-json-bytes: 64 KiB)
        admin, connect = Rest(server.http, ADMIN_TOKEN), Connect(server.http, ADMIN_TOKEN)
        game_id = long_game(admin)
        [export, listed, _, _, get] = calls(connect, game_id)
        first = check_bytes(server, *export)
        assert served(server, "ExportGame") == 2  # REST's and Connect's JSON, each once
        check_bytes(server, *listed)
        assert served(server, "ListEvents") == 2  # (a page of 1,000 events: large, never kept)
        check_bytes(server, *get)
        assert served(server, "GetGame") == 0  # small: on the loop, the same bytes
        again = check_bytes(server, *export)
        assert again == first
        assert served(server, "ExportGame") == 2  # kept: not written again, in either style
        assert metric(server, "ludotheque_heavy_reads_in_flight") == 0


def test_writing_json_is_a_heavy_read_refused_past_the_budget() -> None:
    env = {"LUDOTHEQUE_HEAVY_WORKERS": "1", "LUDOTHEQUE_HEAVY_WAITING": "0"}
    with running_server(env=env) as server:
        admin, connect = Rest(server.http, ADMIN_TOKEN), Connect(server.http, ADMIN_TOKEN)
        game_id = long_game(admin)
        # The export made and kept (in protobuf): what is left of a REST export is its JSON.
        expected = connect.unary("ExportGame", api.ExportGameRequest(game_id=game_id))
        assert isinstance(expected, api.ExportGameResponse)
        path = f"/v1/games/{game_id}:export"
        with ThreadPoolExecutor(FLOOD) as callers:
            replies = list(callers.map(lambda _: admin.get(path), range(FLOOD)))
        refused = [reply for reply in replies if reply.status == 429]
        assert all(reply.status in (200, 429) for reply in replies), [reply.status for reply in replies]
        assert refused and all(reply.headers["retry-after"] == "1" for reply in refused)
        assert "HEAVY_READS" in refused[0].body.decode()
        assert served(server, "ExportGame", "refused_total") == len(refused)
        assert all(reply.body == as_json(expected, "rest") for reply in replies if reply.status == 200)
        assert admin.get(path).body == as_json(expected, "rest")  # written by one of them, kept
