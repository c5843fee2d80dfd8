"""Game data pinned per rules version (engines/data.py): every game records the digest
of the data it was dealt with, replays only with that data, and the data of each rules
version this build plays is pinned in seeds/<kind>/data-lock.json."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engines.contract import DataUnavailable, SeatInfo, fold
from engines.data import content_digest, load_game_data, pinned_digests
from engines.registry import GAMES
from tests.support.kinds import EVERY_ENGINE as ENGINES
from tests.support.server import ROOT

# The data files each game registers (engines/<kind>/__init__.py's GAME.data).
DATA_FILES = {kind: tuple(game.data.documents) for kind, game in GAMES.items() if game.data is not None}
KINDS_WITH_DATA = sorted(DATA_FILES)


def _dealt(kind: str) -> list[Any]:
    engine = ENGINES[kind]
    seats = [SeatInfo(age=30 + i) for i in range(max(engine.min_seats, 2))]
    return list(engine.setup(engine.resolve_options(engine.options_type(), seats), seats, random.Random(1)))


@pytest.mark.parametrize("kind", KINDS_WITH_DATA)
def test_the_data_of_the_rules_version_played_is_the_data_pinned_for_it(kind: str) -> None:
    """Editing a data file changes the rules: this fails until the rules version is
    bumped and the new digest pinned (then the golden logs are regenerated)."""
    engine = ENGINES[kind]
    data = load_game_data(kind, engine.rules_version, DATA_FILES[kind])
    pinned = pinned_digests(kind)
    assert pinned.get(engine.rules_version) == data.digest, (
        f"seeds/{kind}/ no longer holds the data pinned for {engine.rules_version}: bump the rules version, "
        f"pin {data.digest} in seeds/{kind}/data-lock.json and run scripts/golden.py"
    )


@pytest.mark.parametrize("kind", KINDS_WITH_DATA)
def test_every_game_records_the_digest_of_its_data(kind: str) -> None:
    started = _dealt(kind)[0]
    assert started.game_started.data_digest == pinned_digests(kind)[ENGINES[kind].rules_version]


@pytest.mark.parametrize("kind", KINDS_WITH_DATA)
def test_a_game_dealt_with_other_data_is_refused_naming_the_rules_version(kind: str) -> None:
    engine = ENGINES[kind]
    events = _dealt(kind)
    events[0].game_started.data_digest = "sha256:" + "0" * 64
    with pytest.raises(DataUnavailable) as refused:
        fold(engine, events)
    assert refused.value.rules_version == engine.rules_version and refused.value.kind == kind
    assert engine.rules_version in str(refused.value) and "sha256:000" in str(refused.value)
    events[0].game_started.ClearField("data_digest")
    with pytest.raises(DataUnavailable):
        fold(engine, events)


def test_the_digest_is_of_the_content_not_the_layout_nor_the_about_note() -> None:
    document = json.loads((ROOT / "seeds" / "picnic" / "tiles.json").read_text())
    reordered = dict(reversed(list(document.items())))
    reworded = {**document, "about": "other words"}
    assert content_digest({"tiles.json": document}) == content_digest({"tiles.json": reordered})
    assert content_digest({"tiles.json": document}) == content_digest({"tiles.json": reworded})
    changed = json.loads(json.dumps(document))
    changed["base"][0]["count"] += 1
    assert content_digest({"tiles.json": document}) != content_digest({"tiles.json": changed})
    assert content_digest({"a.json": document}) != content_digest({"b.json": document})


# What renderers are told (GetGameKind): colours and named option sets. A game's record
# keeps its options whole, so these never change how a game replays.
PRESENTATION_FILES = {"material.json", "presets.json"}


def test_every_data_file_is_pinned() -> None:
    """The files an engine reads are all in its digest: none is left out."""
    for kind, names in DATA_FILES.items():
        on_disk = {p.name for p in (ROOT / "seeds" / kind).glob("*.json")} - {"data-lock.json", *PRESENTATION_FILES}
        assert on_disk == set(names), kind
