"""Forged `known_version` claims.

Before: a seat could say it was given up to 1,000 versions past the store's
(`known_version`, field 14 of the calls and the Play join), and the server recorded
that many versions of its game as lost to a storage failover, as often as it asked:
placeholders in every player's history, the game unavailable while it was rebuilt.
Now a seat's (or host's) claim is believed up to 256 versions past the store's (about
the most one lost append holds), and players' claims record at most 256 versions of a
game lost every ten minutes in a process; only the admin's claim is believed up to
1,000 versions, always."""

from __future__ import annotations

from typing import Any

from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess


def losses(game: dict[str, Any]) -> list[tuple[int, int]]:
    return [(int(loss["first"]), int(loss["last"])) for loss in game.get("historyLosses", [])]


def claim(server: ServerProcess, game_id: str, token: str, known: int) -> dict[str, Any]:
    reply = Rest(server.http, token).get(f"/v1/games/{game_id}?knownVersion={known}")
    assert reply.status == 200, reply.body
    return dict(reply.json)


def new_game(server: ServerProcess) -> tuple[str, str, int]:
    created = Rest(server.http).post("/v1/games", {"kind": "mooki", "seats": [{"name": "Cléo"}, {"name": "Robin"}]})
    return created.json["gameId"], created.json["seatTokens"][0], int(created.json["game"]["version"])


def test_a_seat_claiming_far_past_the_store_is_not_believed(server: ServerProcess) -> None:
    game_id, cleo, version = new_game(server)
    assert losses(claim(server, game_id, cleo, version + 900)) == []
    assert int(claim(server, game_id, cleo, 0)["version"]) == version  # nothing recorded, nothing moved


def test_a_seats_claims_record_a_bounded_loss_then_are_not_believed_so_soon(server: ServerProcess) -> None:
    game_id, cleo, version = new_game(server)
    first = claim(server, game_id, cleo, version + 200)  # as a failover's lag could be: believed
    assert losses(first) == [(version + 1, version + 200)]
    again = claim(server, game_id, cleo, int(first["version"]) + 200)  # 400 in a moment: not believed
    assert losses(again) == losses(first)
    small = claim(server, game_id, cleo, int(first["version"]) + 2)  # what is left of the budget: believed
    assert len(losses(small)) == 2


def test_the_admins_claim_is_believed_further(server: ServerProcess) -> None:
    game_id, _, version = new_game(server)
    assert losses(claim(server, game_id, ADMIN_TOKEN, version + 900)) == [(version + 1, version + 900)]
