"""The golden logs of seeds/replays/ still replay to the same end, under today's rules.

A change to an engine that alters past games fails here, loudly: either the log no
longer follows the rules (the event and the reason are named) or the final views differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf import json_format

from engines.registry import ENGINES
from scripts.golden import viewers
from service.app.logs.verify import Replayed, verify
from service.app.model import gamelog
from tests.support.server import ROOT

REPLAYS = ROOT / "seeds" / "replays"
LOGS = sorted(REPLAYS.glob("*/*.jsonl"))


@pytest.mark.parametrize("kind", sorted(ENGINES))
def test_every_game_kind_has_at_least_three_golden_games(kind: str) -> None:
    logs = REPLAYS.glob(f"{kind}/*.jsonl")
    finished = [p for p in logs if json.loads(p.with_suffix(".expected.json").read_text())["status"]["finished"]]
    assert len(finished) >= 3, f"run: python scripts/golden.py --kind {kind}"


@pytest.mark.parametrize("path", LOGS, ids=[str(p.relative_to(REPLAYS)) for p in LOGS])
def test_a_golden_log_replays_to_its_recorded_end(path: Path) -> None:
    log = gamelog.parse(path.read_bytes())
    checked = verify(log)
    assert isinstance(checked, Replayed), f"{path.name} no longer follows the rules: {checked}"
    expected = json.loads(path.with_suffix(".expected.json").read_text())
    engine = checked.engine
    final = checked.states[-1]
    status = engine.status(final)
    assert expected["version"] == len(log.events)
    assert expected["status"] == {
        "finished": status.finished,
        "to_act": list(status.to_act),
        "winners": list(status.winners),
        "scores": list(status.scores),
    }
    for name, viewer in viewers(len(log.header.seats)).items():
        view = json_format.MessageToDict(engine.view(final, viewer))
        assert view == expected["views"][name], f"{name}'s final view changed"
