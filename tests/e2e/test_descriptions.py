"""Descriptions, languages, choices and rendering facts through the real server, as a
frontend meets them: REST with Accept-Language or ?locale=, gRPC metadata, server-sent
events, Play, errors, GetGameKind and ListGameKinds."""

from __future__ import annotations

import re
from typing import Any

import grpc
import pytest
from ludotheque import Client, localized_message
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.registry import ENGINES
from tests.support.connect import Connect
from tests.support.games import create_over_rest
from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess

SEATS = [{"name": "Cléo", "age": 6}, {"name": "Robin", "age": 38}]


def test_legal_commands_and_events_come_described_in_the_callers_language(server: ServerProcess) -> None:
    rest = Rest(server.http)
    created = create_over_rest(rest, "mooki", SEATS)
    game_id, tokens = created["gameId"], created["seatTokens"]
    cleo = rest.with_token(tokens[0])
    french = cleo.get(f"/v1/games/{game_id}", headers={"Accept-Language": "fr-CH, fr;q=0.9"}).json
    english = cleo.get(f"/v1/games/{game_id}").json
    by_query = cleo.get(f"/v1/games/{game_id}?locale=fr", headers={"Accept-Language": "en"}).json
    assert by_query["legalCommands"] == french["legalCommands"]  # the field wins over the header
    draw_left, _ = french["legalCommands"]
    assert draw_left["description"]["key"] == "mooki.command.draw"
    assert draw_left["description"]["text"].startswith("Piocher à gauche (")
    assert english["legalCommands"][0]["description"]["text"].startswith("Draw from the left pile (")
    assert draw_left["description"]["args"]["pile"] == {"value": "0", "text": "gauche"}
    assert [c["choices"] for c in french["legalCommands"]] == [
        [{"role": "CHOICE_ROLE_PIECE", "subject": "pile", "value": str(p), "description": c["description"]}]
        for p, c in enumerate(french["legalCommands"])
    ]
    # A legal command goes back as it came: its words are ignored.
    played = cleo.post(
        f"/v1/games/{game_id}/commands", {"command": draw_left, "commandId": "c1"}, headers={"Accept-Language": "fr"}
    )
    assert played.status == 200, played.body
    drawn = played.json["events"][0]["description"]
    assert drawn["key"] == "mooki.event.card_drawn_seen" and drawn["text"].startswith("Cléo pioche à gauche : ")
    # Robin may not see the face underneath, nor may his words tell it.
    robin_events = rest.with_token(tokens[1]).get(f"/v1/games/{game_id}/events?fromVersion=2").json["events"]
    assert robin_events[0]["description"]["key"] == "mooki.event.card_drawn"
    assert "hidden" not in robin_events[0]["description"]["args"]
    places = played.json["legalCommands"]
    assert {c["choices"][0]["value"] for c in places} == {"SIDE_SHOWN", "SIDE_HIDDEN"}
    assert all(c["description"]["text"].startswith("Jouer ") for c in places)


def test_server_sent_events_and_the_export_are_described(server: ServerProcess) -> None:
    rest = Rest(server.http)
    game_id = create_over_rest(rest, "mooki", SEATS)["gameId"]
    _, _, first = next(rest.events(f"/v1/games/{game_id}/events:stream?locale=fr"))
    assert (
        first["event"]["description"]["text"]
        == "Les cartes sont mélangées en deux pioches. Cléo commence : c’est la personne la plus jeune."
    )
    log = (
        Rest(server.http, ADMIN_TOKEN).get(f"/v1/games/{game_id}:export", headers={"Accept-Language": "fr"}).json["log"]
    )
    assert log["events"][0]["description"]["key"] == "mooki.event.game_started"


def test_grpc_calls_play_sessions_and_errors_speak_the_metadata_language(server: ServerProcess) -> None:
    with Client(server.target, locale="fr") as lobby:
        created = lobby.create_game("mooki", SEATS)
        cleo, robin = (lobby.with_token(token) for token in created.seat_tokens)
        assert cleo.get_game(created.game_id).legal_commands[0].description.text.startswith("Piocher")
        with pytest.raises(grpc.RpcError) as refused:
            robin.submit(created.game_id, mooki.Command(draw=mooki.Draw(pile=0)))
        assert localized_message(refused.value) == "Ce n’est pas ton tour."
        assert refused.value.details() == "It is seat 0's turn, not seat 1's."  # for developers
        with cleo.play(created.game_id, views=True) as session:
            for message in session:
                if message.HasField("turn"):
                    turn = message.turn
                    break
        assert [c.choices[0].subject for c in turn.legal_commands] == ["pile", "pile"]
        assert turn.legal_commands[0].description.text.startswith("Piocher à gauche")
    with Client(server.target, created.seat_tokens[0]) as english:
        assert english.get_game(created.game_id).legal_commands[0].description.text.startswith("Draw")


def test_errors_carry_their_message_key_and_words_over_rest(server: ServerProcess) -> None:
    rest = Rest(server.http)
    created = create_over_rest(rest, "mooki", SEATS)
    game_id, tokens = created["gameId"], created["seatTokens"]
    body = {"command": {"mooki": {"draw": {"pile": 0}}}, "commandId": "r1"}
    reply = rest.with_token(tokens[1]).post(f"/v1/games/{game_id}/commands", body, headers={"Accept-Language": "fr"})
    assert reply.status == 400
    details = {d["@type"].rsplit(".", 1)[1]: d for d in reply.json["details"]}
    assert details["ErrorInfo"]["metadata"]["message_key"] == "mooki.rule.not_your_turn"
    assert details["LocalizedMessage"] == {
        "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
        "locale": "fr",
        "message": "Ce n’est pas ton tour.",
    }
    missing = rest.get("/v1/games/nope?locale=fr").json
    [localized] = [d for d in missing["details"] if d["@type"].endswith("google.rpc.LocalizedMessage")]
    assert localized["message"] == "Cette partie n’existe pas."


def test_game_kinds_give_a_renderer_what_it_needs(server: ServerProcess) -> None:
    rest = Rest(server.http)
    kinds = rest.get("/v1/kinds").json["kinds"]
    assert [k["kind"] for k in kinds] == sorted(ENGINES)
    picnic = rest.get("/v1/kinds/picnic", headers={"Accept-Language": "fr"}).json
    assert picnic["name"]["text"] == "Le pique-nique de Facteur Souris"
    assert (picnic["minSeats"], picnic["maxSeats"]) == (1, 4)
    bots = {bot["name"]: bot["description"] for bot in picnic["bots"]}
    assert set(bots) == {"greedy", "random", "strong"}
    assert bots["strong"]["key"] == "bot.strong" and bots["strong"]["text"].startswith("Réfléchit à l’avance")
    board = next(o for o in picnic["options"] if o["field"] == "board")
    assert [v["name"] for v in board["values"]] == ["BOARD_UNSPECIFIED", "BOARD_EASY", "BOARD_HARD"]
    assert picnic["defaults"]["picnic"]["board"] == "BOARD_EASY"
    assert "first_game" in {p["name"] for p in picnic["presets"]}
    rule = next(r for r in picnic["ruleCodes"] if r["code"] == "bad_route")
    assert rule["description"]["key"] == "picnic.rule.bad_route" and rule["description"]["text"].startswith("Ce chemin")
    material = picnic["picnic"]
    easy = material["boards"][0]
    layout = easy["layout"]
    assert len(easy["positions"]) == layout["width"] * layout["height"]
    house = easy["positions"][layout["house"]]
    assert (house.get("row", 0), house.get("column", 0)) == (3, 0)  # "H" starts the fourth row of the map
    assert easy["paths"] and all(p["start"] < p["end"] for p in easy["paths"])
    assert [f["label"]["text"] for f in material["friends"]][:2] == ["Lapin", "Écureuil"]
    assert all(f["rgb"].startswith("#") for f in material["friends"])
    pirates = rest.get("/v1/kinds/pirates").json["pirates"]
    assert [c["sticker"] for c in pirates["colours"]] == ["flower", "square", "circle", "star"]
    assert len(pirates["deck"]) == 52
    families = rest.get("/v1/kinds/mooki").json["mooki"]["families"]
    assert [f["name"]["text"] for f in families] == ["Sun", "Moon", "Fossil", "Seashell", "Leaf"]
    unknown = rest.get("/v1/kinds/chess")
    assert unknown.status == 404


@pytest.mark.parametrize("kind", sorted(ENGINES))
def test_every_preset_creates_a_game(server: ServerProcess, kind: str) -> None:
    """Presets are optional (docs/NEW_GAME.md): a game that names none has none to try."""
    with Client(server.target) as lobby:
        presets = lobby.get_game_kind(kind).presets
        if not presets:
            pytest.skip(f"{kind} names no presets")
        engine = ENGINES[kind]
        seats: list[Any] = [{"name": f"bot-{i}", "bot": "greedy"} for i in range(max(engine.min_seats, 2))]
        for preset in presets:
            created = lobby.create_game(kind, seats, getattr(preset.options, kind))
            assert created.game.options.WhichOneof("game") == kind


def test_outcomes_come_described_in_the_callers_language_on_every_transport(server: ServerProcess) -> None:
    """A game of bots, listed publicly, plays itself out when created: its outcome comes
    with its words in the caller's language by gRPC, REST and Connect, and so does its
    line in ListGames."""
    bots = [{"name": "Cléo", "bot": "greedy", "age": 6}, {"name": "Robin", "bot": "random", "age": 38}]
    with Client(server.target, locale="fr") as lobby:
        created = lobby.create_game("mooki", bots, visibility=game_pb2.VISIBILITY_PUBLIC)
        by_grpc = lobby.get_game(created.game_id).outcome.description
        listed = next(g for g in lobby.list_games(kind="mooki").games if g.game_id == created.game_id)
    # "X gagne avec…", or on a tie "X gagne : …" ("X wins with…", "X wins: …")
    assert by_grpc.key.startswith("mooki.event.game_finished") and re.search(r"\bgagne\b", by_grpc.text)
    assert listed.outcome.description == by_grpc
    rest = Rest(server.http)
    by_rest = rest.get(f"/v1/games/{created.game_id}", headers={"Accept-Language": "fr"}).json["outcome"]
    assert by_rest["description"]["text"] == by_grpc.text
    assert re.search(r"\bwins\b", rest.get(f"/v1/games/{created.game_id}").json["outcome"]["description"]["text"])
    games = rest.get("/v1/games?kind=mooki&locale=fr").json["games"]
    assert next(g for g in games if g["gameId"] == created.game_id)["outcome"]["description"]["text"] == by_grpc.text
    reply = Connect(server.http).unary("GetGame", api.GetGameRequest(game_id=created.game_id, locale="fr"))
    assert isinstance(reply, game_pb2.Game) and reply.outcome.description == by_grpc
