"""What GameApp tells people: descriptions are words for one reader, never stored (an
imported log's are dropped); a drawer's words name the face underneath and no one
else's do; the terminal reads its language from the environment."""

from __future__ import annotations

from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.pirates.v1 import pirates_pb2 as pirates
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app.model.stored import parse_event
from service.cli.language import environment_locale
from tests.support.aio import async_test
from tests.support.apps import ADMIN, create_game, new_app, submit


@async_test
async def test_an_imported_log_keeps_no_words() -> None:
    app = new_app()
    created = await create_game(app)
    await app.moves.submit(
        submit(created.game_id, game_pb2.Command(mooki=mooki.Command(draw=mooki.Draw(pile=0)))), created.seat_tokens[0]
    )
    exported = await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id, locale="fr"), ADMIN)
    assert all(event.description.text for event in exported.log.events)
    imported = await app.logs.import_game(api.ImportGameRequest(log=exported.log), ADMIN)
    stored = [parse_event(item) for item in await app.store.read(imported.game_id, 1, imported.game.version)]
    assert stored and not any(event.HasField("description") for event in stored)
    assert not any(event.command.HasField("description") or event.command.choices for event in stored)
    again = await app.logs.export_game(api.ExportGameRequest(game_id=imported.game_id, locale="fr"), ADMIN)
    assert [e.description for e in again.log.events] == [e.description for e in exported.log.events]


@async_test
async def test_only_the_drawer_is_told_the_face_underneath() -> None:
    app = new_app()
    created = await create_game(app)
    cleo, robin = created.seat_tokens
    drew = await app.moves.submit(
        submit(created.game_id, game_pb2.Command(mooki=mooki.Command(draw=mooki.Draw(pile=0)))), cleo
    )
    hidden = drew.view.mooki.drawn.hidden
    request = api.ListEventsRequest(game_id=created.game_id, from_version=drew.version)
    mine = (await app.history.list_events(request, cleo)).events[-1].description
    theirs = (await app.history.list_events(request, robin)).events[-1].description
    spectator = (await app.history.list_events(request, "")).events[-1].description
    face = f"{mooki.FaceKind.Name(hidden.kind)}/{mooki.Family.Name(hidden.family)}"
    assert mine.key == "mooki.event.card_drawn_seen" and mine.args["hidden"].value in (face, "FACE_KIND_SPIDER")
    assert mine.args["hidden"].text in mine.text
    # The two faces of a card differ, so the face underneath is nowhere in the others' words.
    assert theirs == spectator and theirs.key == "mooki.event.card_drawn" and "hidden" not in theirs.args
    assert mine.args["hidden"].text not in theirs.text


@async_test
async def test_a_count_in_the_words_takes_its_plural_form_in_each_language() -> None:
    """The island one space away is "1 space" (English) and "1 case" (French), two of them plural."""
    app = new_app()
    said = {}
    for distance in (1, 2):
        request = api.CreateGameRequest(
            kind="pirates",
            seats=[game_pb2.SeatSpec(name="Léa"), game_pb2.SeatSpec(name="Robin")],
            options=game_pb2.GameOptions(pirates=pirates.Options(island_distance=distance)),
        )
        created = await app.games.create_game(request, "")
        for locale in ("en", "fr"):
            listed = api.ListEventsRequest(game_id=created.game_id, from_version=1, locale=locale)
            said[distance, locale] = (await app.history.list_events(listed, ADMIN)).events[0].description.text
    assert "sail 1 space reaches" in said[1, "en"] and "sail 2 spaces reaches" in said[2, "en"]
    assert "parcourt 1 case atteint" in said[1, "fr"] and "parcourt 2 cases atteint" in said[2, "fr"]


def test_the_terminal_language_comes_from_the_environment() -> None:
    assert environment_locale({"LANG": "fr_FR.UTF-8"}) == "fr-FR"
    assert environment_locale({"LANGUAGE": "fr:en", "LANG": "de_DE.UTF-8"}) == "fr, en"
    assert environment_locale({"LC_ALL": "C", "LANG": "C.UTF-8"}) == ""
    assert environment_locale({}) == ""
