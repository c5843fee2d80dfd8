"""Through the real server and the generated clients: creation limits answered with
RESOURCE_EXHAUSTED / 429 and when to come back, clients told apart by address behind a
trusted proxy, API keys, the listing's privacy, seat tokens the admin rotates, and short
secrets refused at start."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from ludotheque import Client, error_status, retry_delay
from ludotheque.v1 import game_pb2, game_service_pb2

from service.app.access.creators import hash_api_key
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ROOT, ServerProcess, running_server

SEATS = [{"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"}]
BODY = {"kind": "mooki", "seats": SEATS}


@pytest.fixture(scope="module")
def limited() -> Iterator[ServerProcess]:
    env = {"LUDOTHEQUE_CREATE_RATE": "2", "LUDOTHEQUE_LIVE_GAMES": "10", "LUDOTHEQUE_TRUSTED_PROXIES": "127.0.0.1"}
    with running_server(env=env) as server:
        yield server


def from_address(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def test_past_its_rate_a_client_gets_429_with_retry_after_and_others_still_create(limited: ServerProcess) -> None:
    rest = Rest(limited.http)
    for _ in range(2):
        assert rest.post("/v1/games", BODY, headers=from_address("198.51.100.1")).status == 200
    refused = rest.post("/v1/games", BODY, headers=from_address("198.51.100.1"))
    assert refused.status == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    status = refused.json
    assert status["code"] == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    kinds = {detail["@type"].rsplit(".", 1)[1] for detail in status["details"]}
    assert {"QuotaFailure", "RetryInfo", "ErrorInfo"} <= kinds
    # One ErrorInfo: the quota's reason, and the message key besides (docs/DESCRIPTIONS.md, "Errors").
    [info] = [detail for detail in status["details"] if detail["@type"].endswith("google.rpc.ErrorInfo")]
    assert info["metadata"]["message_key"] == "error.resource_exhausted" and info["reason"]
    # Connect says the same, with the same header.
    connect = rest.post("/ludotheque.v1.GameService/CreateGame", BODY, headers=from_address("198.51.100.1"))
    assert connect.status == 429 and connect.json["code"] == "resource_exhausted" and connect.headers["retry-after"]
    # Another client behind the same proxy has a rate of its own.
    assert rest.post("/v1/games", BODY, headers=from_address("198.51.100.2")).status == 200
    # What the client claims left of the address the proxy saw does not count.
    spoofed = from_address("203.0.113.66, 198.51.100.1")
    assert rest.post("/v1/games", BODY, headers=spoofed).status == 429


def test_over_grpc_the_refusal_carries_a_retry_info(limited: ServerProcess) -> None:
    metadata = (("x-forwarded-for", "198.51.100.3"),)  # as a proxy in front of gRPC adds it
    request = game_service_pb2.CreateGameRequest(
        kind="mooki", seats=[game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(name="Robin", bot="greedy")]
    )
    with Client(limited.target) as client:
        for _ in range(2):
            client.stub.CreateGame(request, metadata=metadata, timeout=10)
        with pytest.raises(grpc.RpcError) as refused:
            client.stub.CreateGame(request, metadata=metadata, timeout=10)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    delay = retry_delay(refused.value)
    assert delay is not None and 0 < delay <= 60
    status = error_status(refused.value)
    assert isinstance(status, status_pb2.Status)
    failure = error_details_pb2.QuotaFailure()
    assert any(detail.Unpack(failure) for detail in status.details)
    assert failure.violations[0].subject == "create:ip:198.51.100.3"


def test_the_listing_shows_everyone_the_listed_games_only_and_the_admin_who_created_each(
    limited: ServerProcess,
) -> None:
    rest = Rest(limited.http)
    address = from_address("198.51.100.4")
    unlisted = rest.post("/v1/games", BODY, headers=address).json["gameId"]
    listed = rest.post("/v1/games", {**BODY, "visibility": "VISIBILITY_LISTED"}, headers=address).json["gameId"]
    everyone = {game["gameId"]: game for game in rest.get("/v1/games?pageSize=500").json["games"]}
    assert listed in everyone and unlisted not in everyone
    assert all(seat.get("name", "") == "" and "age" not in seat for seat in everyone[listed]["seats"])
    assert everyone[listed].get("createdBy", "") == ""
    with Client(limited.target, ADMIN_TOKEN) as admin:
        games = {game.game_id: game for game in admin.list_games(page_size=500).games}
    assert games[unlisted].created_by == games[listed].created_by == "ip:198.51.100.4"
    assert games[listed].seats[0].name == "Cléo"


def test_the_admin_rotates_a_seat_token_and_the_old_one_stops_working(limited: ServerProcess) -> None:
    with Client(limited.target, ADMIN_TOKEN) as admin:
        created = admin.create_game("mooki", ["Cléo", "Robin"])
        game_id, (cleo, robin) = created.game_id, created.seat_tokens
        rest = Rest(limited.http)
        assert rest.with_token(cleo).get(f"/v1/games/{game_id}").status == 200
        rotated = rest.with_token(ADMIN_TOKEN).post(f"/v1/games/{game_id}/seats/0:rotateToken", {})
        assert rotated.status == 200
        new = rotated.json["seatToken"]
        assert rest.with_token(cleo).get(f"/v1/games/{game_id}").status == 401
        assert rest.with_token(new).get(f"/v1/games/{game_id}").json["viewer"]["seat"] == 0
        assert rest.with_token(robin).post(f"/v1/games/{game_id}/seats/0:rotateToken", {}).status == 403
        newer = admin.rotate_seat_token(game_id, 0)
        with pytest.raises(grpc.RpcError) as old:
            admin.with_token(new).get_game(game_id)
        assert old.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert admin.with_token(newer).get_game(game_id).viewer.seat == 0


def test_with_the_api_keys_policy_only_a_key_creates_and_its_name_is_recorded(tmp_path: Path) -> None:
    keys = tmp_path / "api-keys"
    keys.write_text(f"school-42:{hash_api_key('the-key-of-school-42-0123456789')}\n")
    env = {"LUDOTHEQUE_CREATE_POLICY": "api-keys", "LUDOTHEQUE_API_KEYS_FILE": str(keys)}
    with running_server(env=env) as server:
        rest = Rest(server.http)
        assert rest.post("/v1/games", BODY).status == 401
        assert rest.with_token("a-key-nobody-gave").post("/v1/games", BODY).status == 401
        created = rest.with_token("the-key-of-school-42-0123456789").post("/v1/games", BODY)
        assert created.status == 200
        assert rest.with_token(ADMIN_TOKEN).post("/v1/games", BODY).status == 200  # the admin always may
        with Client(server.target, ADMIN_TOKEN) as admin:
            assert admin.get_game(created.json["gameId"]).created_by == "key:school-42"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("LUDOTHEQUE_SECRET", "sixteen-bytes-ok"),
        ("LUDOTHEQUE_ADMIN_TOKEN", "admin-token-of-25-bytes!!"),
        ("LUDOTHEQUE_PREVIOUS_SECRET", "old-and-short"),
    ],
)
def test_a_secret_or_admin_token_shorter_than_32_bytes_stops_the_server_at_start(variable: str, value: str) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "LUDOTHEQUE_SECRET": "s" * 32,
        "LUDOTHEQUE_GRPC_PORT": "0",
        "LUDOTHEQUE_HTTP_PORT": "0",
        variable: value,
    }
    done = subprocess.run(
        [sys.executable, "-m", "service", "serve"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and done.stdout == ""
    assert f"{variable} is {len(value)} bytes: it must be at least 32" in done.stderr or (
        f"{variable} is {len(value)} bytes: a secret must be at least 32" in done.stderr
    )
    assert value not in done.stderr.replace(variable, "")  # the secret itself is never shown


def test_ludotheque_api_key_prints_a_key_and_the_line_that_lets_it_in(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service", "api-key", "school-42"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    key, line = done.stdout.splitlines()
    assert len(key) >= 43 and line == f"school-42:{hash_api_key(key)}"
    assert key not in line
