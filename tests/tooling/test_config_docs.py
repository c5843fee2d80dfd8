"""The README's configuration table lists every setting of `ludotheque serve`."""

from __future__ import annotations

from service.cli.config import SETTINGS
from tests.support.server import ROOT


def test_every_setting_has_its_row_in_the_readme() -> None:
    rows = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `--")]
    documented = {row.split("|")[1].strip(" `"): row.split("|")[2].strip(" `") for row in rows}
    assert documented == {setting.flag: setting.env for setting in SETTINGS}
