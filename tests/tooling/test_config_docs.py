"""The configuration table of docs/OPERATIONS.md lists every setting of `ludotheque serve`,
each flag with its environment variable and its default."""

from __future__ import annotations

import re

from service.cli.config import SETTINGS, Setting
from tests.support.server import ROOT

ROWS = [
    [cell.strip() for cell in line.split("|")[1:4]]
    for line in (ROOT / "docs" / "OPERATIONS.md").read_text().splitlines()
    if line.startswith("| `--")
]


def written(setting: Setting) -> str:
    """The default as the table writes it: `none` (or `random`, the secret) when unset."""
    if setting.default == "":
        return "random" if setting.flag == "--secret" else "none"
    if isinstance(setting.default, bool):
        return str(setting.default).lower()
    if isinstance(setting.default, float) and setting.default.is_integer():
        return str(int(setting.default))
    return str(setting.default)


def test_every_setting_has_its_row_in_the_operators_manual() -> None:
    documented = {flag.strip("`"): env.strip("`") for flag, env, _ in ROWS}
    assert len(ROWS) == len(documented), "a setting has two rows"
    assert documented == {setting.flag: setting.env for setting in SETTINGS}


def test_every_default_is_the_servers() -> None:
    defaults = {flag.strip("`"): re.sub(r"^`([^`]*)`.*", r"\1", default) for flag, _, default in ROWS}
    assert defaults == {setting.flag: written(setting) for setting in SETTINGS}
