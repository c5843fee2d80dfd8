"""The service's envelopes are written from the kinds under proto/ (scripts/genproto.py):
a new kind gets the next free field numbers, pinned in proto/kinds.lock.json and never
given again, even once its kind is gone; a field of the service's own cannot take a
kind's number; and each convention a kind's proto must follow is checked, with a
message that says what to fix."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from scripts import genproto
from tests.support.server import ROOT


def copy_of_proto(tmp_path: Path) -> Path:
    proto = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", proto)
    return proto


def add_kind(proto: Path, name: str, change: Callable[[str], str] = lambda text: text) -> Path:
    """A new kind `name` in `proto`: Mooki Island's messages under another name."""
    folder = proto / "ludotheque" / name / "v1"
    shutil.copytree(proto / "ludotheque" / "mooki" / "v1", folder)
    (folder / "mooki.proto").rename(folder / f"{name}.proto")
    for path in folder.glob("*.proto"):
        text = path.read_text().replace("ludotheque.mooki.v1", f"ludotheque.{name}.v1")
        text = text.replace("ludotheque/mooki/v1/mooki.proto", f"ludotheque/{name}/v1/{name}.proto")
        path.write_text(change(text.replace("Mooki Island", f"{name.title()} Land")))
    return folder


def written(proto: Path) -> dict[str, str]:
    """The envelopes written into `proto`, which compiles."""
    texts = genproto.envelopes(proto)
    for name, text in texts.items():
        (proto / name).write_text(text)
    genproto._descriptors(proto, genproto.proto_files(proto))  # every file compiles, the envelopes too
    return texts


def lock(texts: dict[str, str]) -> dict[str, dict[str, int]]:
    kinds: dict[str, dict[str, int]] = json.loads(texts[genproto.LOCK])["kinds"]
    return kinds


def test_the_committed_envelopes_are_what_the_kinds_make() -> None:
    texts = genproto.envelopes()
    for name, text in texts.items():
        assert (ROOT / "proto" / name).read_text() == text, f"proto/{name}: run python scripts/genproto.py"


def next_free(after: int = 0) -> dict[str, int]:
    """The numbers the committed lock would give its next kind (`after` more past those)."""
    kinds = list(lock({genproto.LOCK: (ROOT / "proto/kinds.lock.json").read_text()}).values())
    return {numbering: max(numbers[numbering] for numbers in kinds) + 1 + after for numbering in kinds[0]}


def test_a_new_kind_gets_the_next_free_numbers_in_every_envelope(tmp_path: Path) -> None:
    proto = copy_of_proto(tmp_path)
    free = next_free()
    add_kind(proto, "dice")
    texts = written(proto)
    numbers = lock(texts)
    assert list(numbers)[-1] == "dice"  # appended: the others keep theirs
    assert numbers["dice"] == free
    assert {k: v for k, v in numbers.items() if k != "dice"} == lock(
        {genproto.LOCK: (ROOT / "proto/kinds.lock.json").read_text()}
    )
    game = texts["ludotheque/v1/game.proto"]
    assert f"    // Dice Land.\n    ludotheque.dice.v1.Options dice = {free['GameOptions']};\n  }}" in game
    assert f"    // A Dice Land move.\n    ludotheque.dice.v1.Command dice = {free['Command']};\n  }}" in game
    assert 'import "ludotheque/dice/v1/dice.proto";\nimport "ludotheque/text/v1/description.proto";' in game
    run = texts["ludotheque/v1/event_run.proto"]
    field = f"  repeated ludotheque.dice.v1.Event dice = {free['Event']};\n"
    assert "  // The Dice Land events (Event.dice), in order.\n" + field in run
    assert 'import "ludotheque/dice/v1/material.proto";' in texts["ludotheque/v1/game_kind.proto"]
    add_kind(proto, "cards")
    assert lock(written(proto))["cards"] == next_free(after=1)


def test_a_number_is_never_given_again_once_its_kind_is_gone(tmp_path: Path) -> None:
    proto = copy_of_proto(tmp_path)
    add_kind(proto, "dice")
    written(proto)
    shutil.rmtree(proto / "ludotheque" / "dice")
    add_kind(proto, "cards")
    texts = written(proto)
    numbers = lock(texts)
    assert numbers["dice"] == next_free() and numbers["cards"] == next_free(after=1)  # dice's stay taken
    assert "dice" not in texts["ludotheque/v1/game.proto"]


def test_events_skip_the_numbers_of_the_services_own_fields(tmp_path: Path) -> None:
    """Event's kinds run 10, 11, 12...: past 19 come description = 20 and table = 21."""
    proto = copy_of_proto(tmp_path)
    path = proto / genproto.LOCK
    numbers = json.loads(path.read_text())["kinds"]
    numbers["picnic"]["Event"] = 19
    path.write_text(genproto.lock_text(numbers))
    add_kind(proto, "dice")
    assert lock(genproto.envelopes(proto))["dice"]["Event"] == 22


def test_a_field_of_the_service_cannot_take_a_kinds_number(tmp_path: Path) -> None:
    proto = copy_of_proto(tmp_path)
    game = proto / "ludotheque" / "v1" / "game.proto"
    game.write_text(game.read_text().replace("bool game_over = 7;", "bool game_over = 12;"))
    with pytest.raises(
        SystemExit,
        match=re.escape("Event: field game_over = 12 takes the number proto/kinds.lock.json gives kind picnic"),
    ):
        genproto.envelopes(proto)


BROKEN = [
    ("oneof action {", "oneof move {", "Command's moves are one oneof, named `action`"),
    ("GameStopped game_stopped = 100;", "GameStopped game_stopped = 99;", "needs `GameStopped game_stopped = 100;`"),
    ("PHASE_FINISHED = 4;", "PHASE_OVER = 4;", "an enum with a value PHASE_FINISHED"),
    ("GameStopped stopped = 100;", "GameStopped halted = 100;", "View needs `GameStopped stopped = 100;`"),
    ("optional uint32 active_seat = 2;", "uint32 active_seat = 2;", "View needs `optional uint32 active_seat = 2;`"),
    ("// Dice Land: a two-player game", "// A two-player game", "open its package comment with the game's name"),
    ("// A Dice Land move.\nmessage Command", "message Command", "message Command needs a leading comment"),
    ("message View {", "message Look {", "define message View"),
    ("message Material {", "message Pieces {", "define message Material"),
]


@pytest.mark.parametrize(("before", "after", "told"), BROKEN, ids=[told for _, _, told in BROKEN])
def test_each_convention_broken_is_named_with_what_to_fix(tmp_path: Path, before: str, after: str, told: str) -> None:
    proto = copy_of_proto(tmp_path)
    folder = add_kind(proto, "dice")
    changed = False
    for path in folder.glob("*.proto"):
        text = path.read_text()
        if before in text:
            path.write_text(text.replace(before, after))
            changed = True
    assert changed, before
    with pytest.raises(SystemExit) as refused:
        genproto.envelopes(proto)
    assert told in str(refused.value) and "proto/ludotheque/dice/v1/" in str(refused.value)


SEAT_MARKS = [
    ("string data_digest = 6;", "SEAT_FIELD_SEAT", "GameStarted.data_digest is marked SEAT_FIELD_SEAT, but a seat is"),
    ("uint32 seat = 1;", "SEAT_FIELD_BY_SEAT", "is marked SEAT_FIELD_BY_SEAT (one value per seat): make it repeated"),
    ("uint32 seat = 1;", "SEAT_FIELD_UNSPECIFIED", "is marked SEAT_FIELD_UNSPECIFIED: use SEAT_FIELD_SEAT or"),
]


@pytest.mark.parametrize(("field", "mark", "told"), SEAT_MARKS, ids=[mark for _, mark, _ in SEAT_MARKS])
def test_a_field_marked_as_holding_seats_must_hold_seat_numbers(
    tmp_path: Path, field: str, mark: str, told: str
) -> None:
    def marked(text: str) -> str:
        text = text.replace(
            "package ludotheque.dice.v1;",
            'package ludotheque.dice.v1;\n\nimport "ludotheque/text/v1/seat_field.proto";',
        )
        return text.replace(field, f"{field[:-1]} [(ludotheque.text.v1.seat) = {mark}];", 1)

    proto = copy_of_proto(tmp_path)
    add_kind(proto, "dice", marked)
    with pytest.raises(SystemExit) as refused:
        genproto.envelopes(proto)
    assert told in str(refused.value) and "proto/ludotheque/dice/v1/dice.proto: " in str(refused.value)


def test_fields_marked_as_holding_seats_pass_when_they_hold_seat_numbers(tmp_path: Path) -> None:
    def marked(text: str) -> str:
        text = text.replace(
            "package ludotheque.dice.v1;",
            'package ludotheque.dice.v1;\n\nimport "ludotheque/text/v1/seat_field.proto";',
        )
        text = text.replace("uint32 seat = 1;", "uint32 seat = 1 [(ludotheque.text.v1.seat) = SEAT_FIELD_SEAT];")
        return text.replace(
            "repeated uint32 stars = 1;", "repeated uint32 stars = 1 [(ludotheque.text.v1.seat) = SEAT_FIELD_BY_SEAT];"
        )

    proto = copy_of_proto(tmp_path)
    text = (add_kind(proto, "dice", marked) / "dice.proto").read_text()
    assert "= SEAT_FIELD_SEAT];" in text and "= SEAT_FIELD_BY_SEAT];" in text
    assert "dice" in lock(written(proto))


GRID_MARKS = [
    ("uint32 seat = 1;", "3", "is marked grid_columns, but a grid is a repeated field of integers or enums"),
    ("repeated uint32 stars = 1;", "0", "is marked grid_columns = 0: give the grid's number of columns"),
]


@pytest.mark.parametrize(("field", "columns", "told"), GRID_MARKS, ids=["not repeated", "no columns"])
def test_a_field_laid_out_as_a_grid_must_be_a_list_of_columns(
    tmp_path: Path, field: str, columns: str, told: str
) -> None:
    def marked(text: str) -> str:
        text = text.replace(
            "package ludotheque.dice.v1;", 'package ludotheque.dice.v1;\n\nimport "ludotheque/text/v1/grid.proto";'
        )
        return text.replace(field, f"{field[:-1]} [(ludotheque.text.v1.grid_columns) = {columns}];", 1)

    proto = copy_of_proto(tmp_path)
    add_kind(proto, "dice", marked)
    with pytest.raises(SystemExit) as refused:
        genproto.envelopes(proto)
    assert told in str(refused.value) and "proto/ludotheque/dice/v1/dice.proto: " in str(refused.value)


def test_a_kind_in_the_wrong_package_or_without_its_file_is_named(tmp_path: Path) -> None:
    proto = copy_of_proto(tmp_path)
    folder = add_kind(
        proto, "dice", lambda text: text.replace("package ludotheque.dice.v1;", "package ludotheque.die.v1;")
    )
    with pytest.raises(SystemExit, match=re.escape("its package must be ludotheque.dice.v1")):
        genproto.envelopes(proto)
    shutil.rmtree(folder)
    (proto / "ludotheque" / "dice" / "v1").mkdir(parents=True)
    (proto / "ludotheque" / "dice" / "v1" / "rules.proto").write_text(
        'syntax = "proto3";\npackage ludotheque.dice.v1;\n'
    )
    with pytest.raises(SystemExit, match=r"dice/v1/dice.proto is missing"):
        genproto.envelopes(proto)
