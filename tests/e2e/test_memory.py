"""The memory rule through a real server and the generated client: during a Mooki
Island game, no face of a card now under another reaches a seat or a spectator, by
ListEvents, ReplayGame at any version, StreamEvents from the first version, a Play
session's catch-up, server-sent events or ExportGame; the admin reads every face; once
the game is over, everyone does (seeds/mooki/RULES.md, decision 7)."""

from __future__ import annotations

import random

from ludotheque import Client
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess

SEATS = [{"name": "Cléo", "age": 6}, {"name": "Robin", "age": 38}]


def play_moves(lobby: Client, created: api.CreateGameResponse, moves: int, rng: random.Random) -> None:
    """`moves` legal commands, each by the seat to act, chosen at random."""
    game_id, tokens = created.game_id, created.seat_tokens
    for _ in range(moves):
        game = lobby.get_game(game_id)
        if game.status == game_pb2.GAME_STATUS_FINISHED:
            return
        seat = lobby.with_token(tokens[game.to_act[0]])
        seat.submit(game_id, rng.choice(seat.get_game(game_id).legal_commands))


def buried_cards(admin_events: list[game_pb2.Event]) -> tuple[set[int], dict[int, list[int]]]:
    """From the admin's events: the cards now under another, and for each version the
    card then on top of each collection."""
    collections: list[list[int]] = [[], []]
    tops: dict[int, list[int]] = {}
    for event in admin_events:
        if event.mooki.HasField("card_placed"):
            placed = event.mooki.card_placed
            collections[placed.collection_seat].append(placed.card_id)
        tops[event.version] = [c[-1] if c else -1 for c in collections]
    return {card for collection in collections for card in collection[:-1]}, tops


def check_no_buried_face(events: list[game_pb2.Event], admin: dict[int, game_pb2.Event], buried: set[int]) -> int:
    """No face of a buried card in `events`; how many events read a card back as a card."""
    hidden = 0
    for event in events:
        full = admin[event.version].mooki
        if full.HasField("card_placed") and full.card_placed.card_id in buried:
            told = event.mooki.card_placed
            assert not told.HasField("face") and not told.HasField("other_face"), event
            assert event.description.key.endswith("_unseen"), event.description
            hidden += 1
        if full.HasField("card_drawn") and full.card_drawn.card_id in buried:
            told_drawn = event.mooki.card_drawn
            assert not told_drawn.HasField("shown") and not told_drawn.HasField("hidden"), event
            hidden += 1
    return hidden


def test_no_buried_face_reaches_a_seat_or_a_spectator_through_any_read_path(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", SEATS)
        play_moves(lobby, created, 30, random.Random(4))
        admin_client = lobby.with_token(ADMIN_TOKEN)
        admin_events = admin_client.history(created.game_id)
        version = admin_events[-1].version
        buried, tops = buried_cards(admin_events)
        assert buried, "no card was covered: the test proves nothing"
        admin = {event.version: event for event in admin_events}
        assert any(e.mooki.card_placed.card_id in buried and e.mooki.card_placed.HasField("face") for e in admin_events)
        for token in [*created.seat_tokens, None]:
            reader = lobby.with_token(token)
            history = reader.history(created.game_id)
            assert check_no_buried_face(history, admin, buried) >= len(buried)
            stream = reader.stream(created.game_id, from_version=1)
            streamed = [next(stream) for _ in range(version)]
            stream.close()
            assert streamed == history
            with reader.play(created.game_id, from_version=1) as session:
                caught_up: list[game_pb2.Event] = []
                for message in session:
                    caught_up.extend(message.events)
                    if caught_up and caught_up[-1].version >= version:
                        break
            assert caught_up == history
            assert list(reader.export_game(created.game_id).events) == history
            for at in range(2, version + 1):
                seen = reader.replay(created.game_id, at).view.mooki
                for owner, top in enumerate(tops[at]):
                    if top in buried:
                        assert not seen.collections[owner].HasField("top"), (at, owner)
        rest = Rest(server.http, created.seat_tokens[1])
        sent = rest.events(f"/v1/games/{created.game_id}/events:stream")
        over_sse = [next(sent)[2]["event"] for _ in range(version)]
        placed = [e for e in over_sse if "cardPlaced" in e.get("mooki", {})]
        covered = [e for e in placed if admin[int(e["version"])].mooki.card_placed.card_id in buried]
        assert covered and all("face" not in e["mooki"]["cardPlaced"] for e in covered)
        # The admin reads every face, now as when it happened.
        assert all(e.mooki.card_placed.HasField("face") for e in admin_events if e.mooki.HasField("card_placed"))
