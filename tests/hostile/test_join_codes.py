"""Join codes are guessed, from one address, as fast as the server answers.

Before: 600 to 1,000 guesses a second on one connection, never a 429; and a started
game's code answered GAME_FULL where an unknown one answered NOT_FOUND, so a guesser
learnt which codes had been games. Now: a client address tries at most
--join-code-rate codes a minute (then 429 with Retry-After), every code that finds no
waiting game gets the same answer, and codes are long enough that guessing at that rate
is pointless (docs/SECURITY.md, "Join codes")."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from ludotheque import Client
from ludotheque.v1 import game_pb2, game_service_pb2

from service.app.online.join_codes import ALPHABET, LENGTH
from tests.support.rest import Reply, Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

RATE = 12


@pytest.fixture(scope="module")
def limited() -> Iterator[ServerProcess]:
    with running_server(env={"LUDOTHEQUE_JOIN_CODE_RATE": str(RATE), "LUDOTHEQUE_TRUSTED_PROXIES": "127.0.0.1"}) as s:
        yield s


def join(server: ServerProcess, code: str, address: str) -> Reply:
    return Rest(server.http).post(f"/v1/games/{code}:join", {"name": "Guess"}, headers={"X-Forwarded-For": address})


def answer_without_request_id(reply: Reply) -> dict[str, Any]:
    body = copy.deepcopy(reply.json)
    body["details"] = [d for d in body["details"] if not d["@type"].endswith("RequestInfo")]
    return {"status": reply.status, **body}


def open_game(server: ServerProcess) -> game_service_pb2.CreateGameResponse:
    """A game waiting for one player (its code: `.game.join_code`)."""
    return Client(server.target).create_game("mooki", [{"name": "Cléo", "age": 6}, {"open": True}])


def play_out(server: ServerProcess, created: game_service_pb2.CreateGameResponse) -> None:
    """Starts the game (a bot takes the open seat) and plays Cléo's moves to its end."""
    Client(server.target, created.host_token).start_game(created.game_id)
    cleo = Client(server.target, created.seat_tokens[0])
    while (game := cleo.get_game(created.game_id)).status != game_pb2.GAME_STATUS_FINISHED:
        cleo.submit(created.game_id, game.legal_commands[0])


def test_codes_are_long_enough_to_guess_in_vain() -> None:
    assert len(ALPHABET) ** LENGTH > 5 * 10**14  # docs/SECURITY.md counts on it


def test_unknown_started_finished_and_deleted_games_answer_alike(limited: ServerProcess) -> None:
    started = open_game(limited)
    assert join(limited, started.game.join_code, "198.51.100.7").status == 200  # the last open seat: dealt
    finished = open_game(limited)
    play_out(limited, finished)
    deleted = open_game(limited)
    assert Rest(limited.http, ADMIN_TOKEN).call("DELETE", f"/v1/games/{deleted.game_id}").status == 200
    known = [game.game.join_code for game in (started, finished, deleted)]
    codes = ["".join(reversed(known[0])), *known]
    answers = [answer_without_request_id(join(limited, code, "198.51.100.8")) for code in codes]
    texts = [json.dumps(answer).replace(code, "CODE") for answer, code in zip(answers, codes, strict=True)]
    assert answers[0]["status"] == 404 and len(set(texts)) == 1, texts


def test_guesses_from_one_address_are_limited_and_told_when_to_retry(limited: ServerProcess) -> None:
    guesses = [join(limited, "".join(reversed(ALPHABET[:LENGTH])), "203.0.113.9") for _ in range(RATE + 3)]
    assert [reply.status for reply in guesses[:RATE]] == [404] * RATE
    refused = guesses[RATE:]
    assert {reply.status for reply in refused} == {429}
    assert all(1 <= int(reply.headers["retry-after"]) <= 60 for reply in refused)
    assert refused[0].json["details"][2]["reason"] == "JOIN_CODE_RATE"
    # Another address is not held back, and a real code still works from it.
    assert join(limited, open_game(limited).game.join_code, "203.0.113.10").status == 200
