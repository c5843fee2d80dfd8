"""A listed game is not a public one, on any read path.

Before: `GET /v1/games` blanked a listed game's names, but the anonymous
`GET /v1/games/{id}` (the id being in the listing) returned its players' names, ages and
the outcome's sentence naming the winner; so did its events (a `SeatJoined` with the
name and age), their descriptions, the replay and the export. Now every read without a
token of a listed game that is not public shows it as the listing does: seats without
names or ages, "Player 1"... in every description, no outcome summary. Its players (and
the admin) still see each other, and a public game shows its names to anyone."""

from __future__ import annotations

import json
from itertools import islice

from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api

from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess

NAMES = ("Zéphyrine", "Barnabé")
AGES = (7, 9)


def bot_game(server: ServerProcess, visibility: str) -> str:
    """A finished game (bots only: it plays itself out) whose players have names and ages."""
    seats = [{"name": name, "age": age, "bot": "greedy"} for name, age in zip(NAMES, AGES, strict=True)]
    created = Rest(server.http, ADMIN_TOKEN).post(
        "/v1/games", {"kind": "mooki", "seats": seats, "visibility": visibility}
    )
    assert created.status == 200, created.body
    assert created.json["game"]["status"] == "GAME_STATUS_FINISHED"
    return str(created.json["gameId"])


def joined_game(server: ServerProcess) -> tuple[str, str]:
    """A listed game waiting for players, one of whom joined (a `SeatJoined` with her name
    and age) and left again (a `SeatLeft` with her name); and the host's seat token."""
    rest = Rest(server.http)
    seats = [{"name": NAMES[1], "age": AGES[1]}, {"open": True}, {"open": True}]
    created = rest.post("/v1/games", {"kind": "pirates", "seats": seats, "visibility": "VISIBILITY_LISTED"})
    game_id = created.json["gameId"]
    joined = rest.post(f"/v1/games/{game_id}:join", {"name": NAMES[0], "age": AGES[0]}).json
    assert rest.with_token(joined["seatToken"]).post(f"/v1/games/{game_id}:leave", {}).status == 200
    return game_id, created.json["seatTokens"][0]


def anonymous_reads(server: ServerProcess, game_id: str, token: str | None = None) -> dict[str, str]:
    """What each read path answers about the game without a token (or with `token`)."""
    rest = Rest(server.http, token)
    reads = {
        "GetGame": rest.get(f"/v1/games/{game_id}"),
        "GetGame fr": rest.get(f"/v1/games/{game_id}?locale=fr"),
        "ListEvents": rest.get(f"/v1/games/{game_id}/events?locale=fr"),
        "ReplayGame": rest.get(f"/v1/games/{game_id}/replay"),
        "ExportGame": rest.get(f"/v1/games/{game_id}:export"),
        "Connect GetGame": rest.post(
            "/ludotheque.v1.GameService/GetGame", {"gameId": game_id}, headers={"Content-Type": "application/json"}
        ),
    }
    answers = {path: reply.body.decode() for path, reply in reads.items()}
    for path, reply in reads.items():
        assert reply.status == 200, (path, reply.body)
    count = min(3, int(reads["GetGame"].json["version"]))  # a stream waits for more past the last
    events = islice(rest.events(f"/v1/games/{game_id}/events:stream?locale=en"), count)
    answers["StreamEvents (SSE)"] = json.dumps([data for _, _, data in events], ensure_ascii=False)
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with Client(server.target) as client:
        got = client.stub.GetGame(api.GetGameRequest(game_id=game_id), metadata=metadata, timeout=10)
        answers["gRPC GetGame"] = str(got)
        stream = client.stub.StreamEvents(api.StreamEventsRequest(game_id=game_id), metadata=metadata, timeout=10)
        try:
            answers["gRPC StreamEvents"] = "".join(str(response) for response in islice(stream, count))
        finally:
            stream.cancel()
    return answers


def told(answers: dict[str, str]) -> dict[str, list[str]]:
    """The read paths whose answer names a player or gives an age, and what they told."""
    found: dict[str, list[str]] = {}
    for path, text in answers.items():
        said = [name for name in NAMES if name in text or name.encode("unicode_escape").decode() in text]
        said += [f"age {age}" for age in AGES if f'"age": {age}' in text or f"age: {age}" in text]
        if said:
            found[path] = said
    return found


def test_nobody_without_a_token_learns_who_plays_a_listed_game(server: ServerProcess) -> None:
    game_id = bot_game(server, "VISIBILITY_LISTED")
    assert told(anonymous_reads(server, game_id)) == {}
    game = Rest(server.http).get(f"/v1/games/{game_id}").json
    assert not game["outcome"].get("summary") and game["outcome"]["description"]["text"]  # told, without names
    assert all(not seat.get("name") and not seat.get("age") for seat in game["seats"])


def test_a_listed_games_table_events_name_nobody(server: ServerProcess) -> None:
    game_id, host = joined_game(server)
    anonymous = anonymous_reads(server, game_id)
    assert told(anonymous) == {}
    events = Rest(server.http).get(f"/v1/games/{game_id}/events").json["events"]
    assert [next(iter(event["table"])) for event in events] == ["joined", "left"]
    assert "Joueur 2" in anonymous["ListEvents"]  # described as the seat it took
    assert set(told(anonymous_reads(server, game_id, host))) >= {"GetGame", "ListEvents", "gRPC StreamEvents"}


def test_its_players_and_the_public_still_see_names_where_they_may(server: ServerProcess) -> None:
    listed = bot_game(server, "VISIBILITY_LISTED")
    assert set(told(anonymous_reads(server, listed, ADMIN_TOKEN))) == set(anonymous_reads(server, listed))
    public = bot_game(server, "VISIBILITY_PUBLIC")
    unlisted = bot_game(server, "VISIBILITY_UNLISTED")  # its id is its invitation: shared by its players
    for game_id in (public, unlisted):
        assert told(anonymous_reads(server, game_id)).keys() >= {"GetGame", "ReplayGame", "gRPC GetGame"}
