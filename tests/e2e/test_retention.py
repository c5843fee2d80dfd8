"""Retention through the real server: DeleteGame on every transport (admin only), and
finished games expiring by themselves, exported first, with the settings of `serve`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import grpc
import pytest
from ludotheque import Client

from service.app.logs.verify import Replayed, verify
from service.app.model import gamelog
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

BOTS = [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}]


def test_the_admin_deletes_a_game_over_rest_connect_and_grpc(server: ServerProcess) -> None:
    rest = Rest(server.http)
    with Client(server.target) as lobby:
        games = [lobby.create_game("mooki", ["Cléo", "Robin"]).game_id for _ in range(3)]
        tokens = lobby.create_game("mooki", ["Cléo", "Robin"]).seat_tokens
    assert rest.call("DELETE", f"/v1/games/{games[0]}").status == 401
    assert rest.with_token(tokens[0]).call("DELETE", f"/v1/games/{games[0]}").status == 403
    deleted = rest.with_token(ADMIN_TOKEN).call("DELETE", f"/v1/games/{games[0]}")
    assert (deleted.status, deleted.json) == (200, {})
    assert rest.get(f"/v1/games/{games[0]}").status == 404
    assert rest.with_token(ADMIN_TOKEN).call("DELETE", f"/v1/games/{games[0]}").status == 404
    connect = rest.with_token(ADMIN_TOKEN).post("/ludotheque.v1.GameService/DeleteGame", {"gameId": games[1]})
    assert (connect.status, connect.json) == (200, {})
    with Client(server.target, token=ADMIN_TOKEN) as admin:
        admin.delete_game(games[2])
        with pytest.raises(grpc.RpcError) as missing:
            admin.get_game(games[2])
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        listed = {game.game_id for game in admin.list_games().games}
    assert not listed & set(games)


def test_finished_games_expire_by_themselves_exported_first(tmp_path: Path) -> None:
    settings = {
        "LUDOTHEQUE_FINISHED_GAME_TTL": "1",
        "LUDOTHEQUE_RETENTION_INTERVAL": "0.2",
        "LUDOTHEQUE_EXPIRED_GAMES_DIR": str(tmp_path),
    }
    with running_server(env=settings) as server:
        rest = Rest(server.http)
        # Listed for everyone (games are unlisted unless asked): the listing below shows which are gone.
        listed_game = {"kind": "mooki", "visibility": "VISIBILITY_LISTED"}
        finished = rest.post("/v1/games", {**listed_game, "seats": BOTS}).json["gameId"]
        playing = rest.post("/v1/games", {**listed_game, "seats": [{"name": "a"}, {"name": "b"}]}).json["gameId"]
        deadline = time.monotonic() + 30
        while rest.get(f"/v1/games/{finished}").status != 404:
            assert time.monotonic() < deadline, f"the finished game never expired:\n{server.log()}"
            time.sleep(0.05)
        assert rest.get(f"/v1/games/{playing}").status == 200
        exported = gamelog.parse((tmp_path / f"{finished}.jsonl").read_bytes())
        assert isinstance(verify(exported), Replayed)
        metrics = rest.get("/metrics").body.decode()
        assert 'ludotheque_games_expired_total{kind="mooki",reason="finished"} 1.0' in metrics
        listed = json.loads(rest.get("/v1/games").body)["games"]
        assert [game["gameId"] for game in listed] == [playing]
