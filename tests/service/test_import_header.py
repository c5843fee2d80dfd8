"""ImportGame checks a log's header as CreateGame checks a request (the same code, in
service/app/games/games.py): one test per way a header can be wrong. Before, these made
games nobody could play, tokens that failed, or an INTERNAL error."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from google.rpc import error_details_pb2
from ludotheque.pirates.v1 import pirates_pb2
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app.model.errors import Code
from tests.support.aio import async_test
from tests.support.apps import ADMIN, DRAW_LEFT, create_game, new_app, submit
from tests.support.refusals import expect_error

Change = Callable[[game_pb2.GameLogHeader], None]


def rename(name: str) -> Change:
    def change(header: game_pb2.GameLogHeader) -> None:
        header.seats[0].name = name

    return change


def renumber(*indices: int) -> Change:
    def change(header: game_pb2.GameLogHeader) -> None:
        for seat, index in zip(header.seats, indices, strict=True):
            seat.index = index

    return change


def many_seats(header: game_pb2.GameLogHeader) -> None:
    for index in range(2, 2000):
        header.seats.add(index=index, name=f"p{index}")


def unknown_bot(header: game_pb2.GameLogHeader) -> None:
    header.seats[1].bot = "genius"


def no_such_first_seat(header: game_pb2.GameLogHeader) -> None:
    header.options.mooki.youngest_seat = 5


def other_kinds_options(header: game_pb2.GameLogHeader) -> None:
    header.options.pirates.CopyFrom(pirates_pb2.Options(island_distance=2))


def unknown_kind(header: game_pb2.GameLogHeader) -> None:
    header.kind = "chess"


CASES: list[tuple[str, Change, str]] = [
    ("a NUL in a name", rename("Cl\x00éo"), "log.header.seats[0].name"),
    ("a 10 KB name", rename("x" * 10_000), "log.header.seats[0].name"),
    ("an empty name", rename("  "), "log.header.seats[0].name"),
    ("2000 seats on a two-player game", many_seats, "log.header.seats"),
    ("a seat index given twice", renumber(0, 0), "log.header.seats[1].index"),
    ("a seat index out of range", renumber(0, 7), "log.header.seats[1].index"),
    ("seats not numbered 0..n-1", renumber(1, 0), "log.header.seats[0].index"),
    ("an unknown bot", unknown_bot, "log.header.seats[1].bot"),
    ("a first seat that does not exist", no_such_first_seat, "log.header.options"),
    ("another kind's options", other_kinds_options, "log.header.options"),
    ("an unknown kind", unknown_kind, "log.header.kind"),
]


@pytest.mark.parametrize(("change", "field"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
@async_test
async def test_a_header_create_game_would_refuse_is_an_invalid_argument_and_creates_nothing(
    change: Change, field: str
) -> None:
    app = new_app()
    created = await create_game(app, {"name": "Cléo"}, {"name": "Robin", "bot": "greedy"})
    await app.moves.submit(submit(created.game_id, DRAW_LEFT), created.seat_tokens[0])
    log = (await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id), ADMIN)).log
    change(log.header)
    error = await expect_error(Code.INVALID_ARGUMENT, app.logs.import_game(api.ImportGameRequest(log=log), ADMIN))
    (bad_request,) = [d for d in error.details if isinstance(d, error_details_pb2.BadRequest)]
    assert bad_request.field_violations[0].field == field, error.message
    listed = await app.games.list_games(api.ListGamesRequest(), ADMIN)
    assert [game.game_id for game in listed.games] == [created.game_id]


@async_test
async def test_a_sound_header_still_imports() -> None:
    app = new_app()
    created = await create_game(app, {"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"})
    log = (await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id), ADMIN)).log
    imported = await app.logs.import_game(api.ImportGameRequest(log=log), ADMIN)
    assert [seat.name for seat in imported.game.seats] == ["Cléo", "Robin"]
    assert imported.game.options.mooki.youngest_seat == 0 and imported.game.created_by == "admin"
    assert imported.game.visibility == game_pb2.VISIBILITY_UNLISTED
