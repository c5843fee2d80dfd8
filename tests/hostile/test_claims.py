"""Forged `known_version` claims.

Before: a seat's `GET /v1/games/{id}?knownVersion=<version+250>` made the game jump
from version 3 to 253, listed versions 3-252 as lost and logged an ERROR that the event
store lost them: anyone at the table could spoil a game's history and page the
operators at will. Now a known version counts only with its receipt (`knownReceipt`),
the service's signature over the game, that version and its event, which every answer
that tells a version carries: a claim without one, with a made-up one, or with the
receipt of another version or game changes nothing (no loss, no version skipped, no
ERROR), from anyone, the admin included."""

from __future__ import annotations

import secrets
import zlib
from typing import Any
from urllib.parse import quote

import pytest

from service.app.model.claims import RECEIPT_CHARS, Receipts
from service.app.model.marks import Marks
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess


def losses(game: dict[str, Any]) -> list[tuple[int, int]]:
    return [(int(loss["first"]), int(loss["last"])) for loss in game.get("historyLosses", [])]


def claim(server: ServerProcess, game_id: str, token: str, known: int, receipt: str = "") -> dict[str, Any]:
    reply = Rest(server.http, token).get(f"/v1/games/{game_id}?knownVersion={known}&knownReceipt={quote(receipt)}")
    assert reply.status == 200, reply.body
    return dict(reply.json)


def new_game(server: ServerProcess) -> tuple[str, str, int, str]:
    """A new game: its id, a seat's token, its version and that version's receipt."""
    created = Rest(server.http).post("/v1/games", {"kind": "mooki", "seats": [{"name": "Cléo"}, {"name": "Robin"}]})
    game = created.json["game"]
    return created.json["gameId"], created.json["seatTokens"][0], int(game["version"]), game["receipt"]


def test_every_answer_that_tells_a_version_carries_its_receipt(server: ServerProcess) -> None:
    game_id, cleo, version, receipt = new_game(server)
    assert len(receipt) == RECEIPT_CHARS
    seen = claim(server, game_id, cleo, version, receipt)  # an honest claim: nothing to record
    assert int(seen["version"]) == version and seen["receipt"] == receipt and losses(seen) == []
    events = Rest(server.http, cleo).get(f"/v1/games/{game_id}/events")
    assert int(events.json["version"]) == version and events.json["receipt"] == receipt


@pytest.mark.parametrize("who", ["seat", "admin"])
def test_a_claim_without_a_valid_receipt_changes_nothing(server: ServerProcess, who: str) -> None:
    game_id, cleo, version, receipt = new_game(server)
    _, _, _, elsewhere = new_game(server)  # a real receipt, of another game
    token = cleo if who == "seat" else ADMIN_TOKEN
    forged = [
        "",  # none at all
        secrets.token_urlsafe(20)[:RECEIPT_CHARS],  # made up
        receipt,  # the receipt of the version the game is at, not of the one claimed
        elsewhere,
        receipt[:-1] + ("A" if receipt[-1] != "A" else "B"),  # tampered with
        "\u00e9" * RECEIPT_CHARS,  # not even base64
    ]
    for fake in forged:
        seen = claim(server, game_id, token, version + 250, fake)
        assert losses(seen) == [] and int(seen["version"]) == version, fake
    log = server.log()
    assert "without a valid receipt: not believed" in log  # (once a minute at most)
    assert "recording the loss" not in log and "the event store lost versions" not in log


def test_receipts_prove_their_game_version_and_event_and_survive_a_secret_rotation() -> None:
    old, new = b"o" * 32, b"n" * 32
    before = Receipts([old])
    receipt = before.sign("game-1", 7, 0xCAFE)
    assert before.proof("game-1", 7, receipt) == 0xCAFE
    assert before.proof("game-1", 8, receipt) is None  # another version
    assert before.proof("game-2", 7, receipt) is None  # another game
    assert Receipts([new]).proof("game-1", 7, receipt) is None  # another deployment's secret
    assert Receipts([new, old]).proof("game-1", 7, receipt) == 0xCAFE  # the secret rotated since
    assert receipt != before.sign("game-1", 7, 0xCAFF)  # the event is part of what is signed


def test_a_cache_started_from_a_snapshot_signs_for_no_event_before_it() -> None:
    """Receipts name the fingerprints the cache holds: none for the versions before the
    snapshot it started from (which it never read), so none is signed for a made-up event."""
    marks = Marks()
    marks.add(200, b"the snapshot's event")
    marks.add(201, b"the next")
    assert marks.first == 200 and marks.crc(199) is None and marks.crc(150) is None
    assert marks.crc(201) == zlib.crc32(b"the next")
