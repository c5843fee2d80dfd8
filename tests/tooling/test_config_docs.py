"""The configuration table of docs/OPERATIONS.md lists every setting of `ludotheque serve`,
each flag with its environment variable and its default; and every family of settings
declared in service/ is one that `ludotheque serve` reads (service/cli/config.py)."""

from __future__ import annotations

import ast
import dataclasses
import re
import typing

from service.cli.config import SETTINGS, Config
from service.settings import Setting, declarations
from tests.support.server import ROOT

ROWS = [
    [cell.strip() for cell in line.split("|")[1:4]]
    for line in (ROOT / "docs" / "OPERATIONS.md").read_text().splitlines()
    if line.startswith("| `--")
]
DECLARING = {"setting", "converted"}  # service/settings.py's ways to declare a setting


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


def declared_families() -> set[str]:
    """Every class of service/ with a field declared as a setting, as module.Class."""
    found = set()
    for path in sorted(ROOT.glob("service/**/*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.AnnAssign)
                and isinstance(item.value, ast.Call)
                and isinstance(item.value.func, ast.Name)
                and item.value.func.id in DECLARING
                for item in node.body
            ):
                found.add(f"{module}.{node.name}")
    return found


def read_families(family: type) -> set[str]:
    """`family` and every family it holds, as module.Class."""
    found = {f"{family.__module__}.{family.__qualname__}"}
    hints = typing.get_type_hints(family)
    for field in dataclasses.fields(family):
        kind = hints[field.name]
        if isinstance(kind, type) and dataclasses.is_dataclass(kind) and declarations(kind):
            found |= read_families(kind)
    return found


def test_every_family_of_settings_is_read_by_serve() -> None:
    families = declared_families()
    assert "service.api.websocket.WebSocketSettings" in families  # the scan finds them
    assert families - read_families(Config) == set(), "declared, but not gathered in service/cli/config.py's Config"
