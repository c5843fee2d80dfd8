"""What GameApp tells people: descriptions are words for one reader, never stored (an
imported log's are dropped); a drawer's words name the face underneath and no one
else's do; the terminal reads its language from the environment."""

from __future__ import annotations

from ludotheque.mooki.v1 import mooki_pb2 as mooki
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


def test_the_terminal_language_comes_from_the_environment() -> None:
    assert environment_locale({"LANG": "fr_FR.UTF-8"}) == "fr-FR"
    assert environment_locale({"LANGUAGE": "fr:en", "LANG": "de_DE.UTF-8"}) == "fr, en"
    assert environment_locale({"LC_ALL": "C", "LANG": "C.UTF-8"}) == ""
    assert environment_locale({}) == ""
