"""The layers of docs/ARCHITECTURE.md hold: imports point down only (service/app's
packages in their order), one module writes a game's events, every module says what it
holds, no class or function grows past what a reader takes in at once, and every path
the document names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
MAX_CLASS_LINES = 300
MAX_FUNCTION_LINES = 80

# package -> the packages of ours it must never import (prefix match on dotted names).
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "engines": ("service",),
    # How settings are declared and read: every layer uses it, so it uses none.
    "service.settings": ("service.api", "service.app", "service.cli", "service.bench", "service.store", "engines"),
    "service.store": ("service.api", "service.app", "service.cli", "service.bench", "engines", "ludotheque"),
    "service.app": ("service.api", "service.cli", "service.bench"),
    "service.api": ("service.cli", "service.bench"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, module: str) -> set[str]:
    """Every module name an import statement of `tree` names (absolute)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing module's package
                base = module.split(".")[: -node.level] if node.level else []
                prefix = ".".join(base)
                node_module = f"{prefix}.{node.module}" if node.module else prefix
            else:
                node_module = node.module or ""
            names.add(node_module)
            names.update(f"{node_module}.{alias.name}" for alias in node.names)
    return names


def violations(module: str, source: str) -> list[str]:
    """The imports of `module` (its source given) that break the layering."""
    found = []
    for package, forbidden in FORBIDDEN.items():
        if module != package and not module.startswith(package + "."):
            continue
        for name in sorted(imported(ast.parse(source), module)):
            for bad in forbidden:
                if name == bad or name.startswith(bad + "."):
                    found.append(f"{module} imports {name} ({package} may not import {bad})")
    return found


# service/app's packages, lowest first: each may import only those before it (and
# itself); game_app.py composes them all, and play/ uses the composed GameApp.
APP_PACKAGES = (
    "observe",
    "words",
    "model",
    "views",
    "access",
    "moves",
    "keeping",
    "online",
    "games",
    "tables",
    "history",
    "logs",
    "game_app",
    "play",
)


def app_unit(name: str) -> str | None:
    """The service/app package (or top module) a dotted module name belongs to."""
    parts = name.split(".")
    if parts[:2] != ["service", "app"] or len(parts) < 3:
        return None
    return parts[2]


def order_violations(module: str, source: str) -> list[str]:
    """The imports of `module` that point up or sideways in APP_PACKAGES' order."""
    unit = app_unit(module)
    if unit is None:
        return []
    rank = APP_PACKAGES.index(unit)
    found = []
    for name in sorted(imported(ast.parse(source), module)):
        other = app_unit(name)
        if other is None or other == unit:
            continue
        if other not in APP_PACKAGES:
            continue  # a name imported from service.app itself (GameApp, LiveGame)
        if APP_PACKAGES.index(other) > rank:
            found.append(f"{module} imports {name} ({unit} comes before {other} in service/app's order)")
    return found


def sources() -> list[Path]:
    return sorted([*ROOT.glob("engines/**/*.py"), *ROOT.glob("service/**/*.py")])


def test_imports_point_down_only() -> None:
    problems = [p for path in sources() for p in violations(module_name(path), path.read_text())]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("engines.mooki.rules", "from service.app import envelopes"),
        ("service.store.redis", "import service.app.model.live"),
        ("service.store.memory", "from ludotheque.v1 import game_pb2"),
        ("service.app.moves.moves", "from service.api.rest import to_json"),
        ("service.app.moves.moves", "from service.api import rest"),
        ("service.api.rest", "from service.cli.config import SETTINGS"),
        ("service.app.games.games", "from ...api import rest"),
    ],
)
def test_the_check_catches_an_import_pointing_up(module: str, source: str) -> None:
    assert violations(module, source)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("service.api.rest", "from service.app.model.errors import ServiceError"),
        ("service.app.moves.moves", "from service.store.base import VersionConflict"),
        ("service.cli.serve", "from service.api import grpc_server"),
        ("service.store.redis", "from service.store.base import EventStore"),
    ],
)
def test_the_check_lets_imports_point_down(module: str, source: str) -> None:
    assert not violations(module, source)


def test_service_app_is_made_of_the_packages_in_order() -> None:
    app = ROOT / "service" / "app"
    units = {p.name for p in app.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    units |= {p.stem for p in app.glob("*.py") if p.stem != "__init__"}
    assert units == set(APP_PACKAGES)


def test_service_app_packages_import_only_those_below() -> None:
    problems = [p for path in sources() for p in order_violations(module_name(path), path.read_text())]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("service.app.model.live", "from service.app.views.views import view"),
        ("service.app.observe.metrics", "from service.app.model import errors"),
        ("service.app.moves.moves", "from service.app.online.online import Online"),
        ("service.app.views.kinds", "import service.app.access.auth"),
    ],
)
def test_the_order_check_catches_an_import_pointing_up(module: str, source: str) -> None:
    assert order_violations(module, source)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("service.app.moves.moves", "from service.app.model.live_game import LiveGame"),
        ("service.app.play.play_session", "from service.app import GameApp"),
        ("service.app.model.live", "from service.app.model.marks import Marks"),
    ],
)
def test_the_order_check_lets_imports_point_down(module: str, source: str) -> None:
    assert not order_violations(module, source)


# The one writer of a game's events (docs/ARCHITECTURE.md): only it calls the event log's
# write methods; the bench's seam makes the writes it recorded again on a store alone,
# below any use case (store_cost.py).
WRITER = "service.app.moves.writer"
STORE_WRITES = frozenset({"create", "append"})
STORE_WRITE_VALUES = frozenset({"NewGame", "AppendRequest"})
MAY_WRITE = (WRITER, "service.store", "service.bench.seam")


def store_writes(module: str, source: str) -> list[str]:
    """The places in `module` that write a game's events without the writer: a call of
    a store's create or append (on a name or attribute that is a store: `store`,
    `self._store`, `games.store`...), or the values only those take, imported."""
    if any(module == allowed or module.startswith(allowed + ".") for allowed in MAY_WRITE):
        return []
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STORE_WRITES:
            target = node.func.value
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name.lower().endswith("store"):
                found.append(f"{module}:{node.lineno} calls {ast.unparse(node.func)}")
        elif isinstance(node, ast.ImportFrom) and node.module == "service.store.base":
            for alias in node.names:
                if alias.name in STORE_WRITE_VALUES:
                    found.append(f"{module}:{node.lineno} imports {alias.name}")
    return [f"{place} (only {WRITER} writes a game's events)" for place in found]


def test_only_the_writer_writes_a_games_events() -> None:
    problems = [p for path in sources() for p in store_writes(module_name(path), path.read_text())]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("service.app.keeping.losses", "async def f(games):\n    await games.store.append(request)"),
        ("service.app.games.games", "async def f(self):\n    await self._games.store.create(game)"),
        ("service.app.logs.logs", "async def f(store):\n    await store.create(game)"),
        ("service.app.moves.append", "from service.store.base import AppendRequest"),
        ("service.api.rest", "from service.store.base import NewGame, GameInfo"),
    ],
)
def test_the_writer_check_catches_another_writer(module: str, source: str) -> None:
    assert store_writes(module, source)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("service.app.moves.writer", "async def f(self):\n    await self._store.append(request)"),
        ("service.app.moves.moves", "def f(events):\n    events.append(1)"),
        ("service.app.games.games", "from service.store.base import GameExists"),
        ("service.store.memory", "from service.store.base import AppendRequest"),
    ],
)
def test_the_writer_check_lets_reads_and_other_appends_be(module: str, source: str) -> None:
    assert not store_writes(module, source)


def test_every_module_says_what_it_holds() -> None:
    missing = [
        str(path.relative_to(ROOT))
        for path in sources()
        if path.read_text().strip() and not ast.get_docstring(ast.parse(path.read_text()))
    ]
    assert not missing, f"modules without a docstring: {missing}"


def test_no_class_is_too_long_to_read() -> None:
    long = []
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_CLASS_LINES:
                    long.append(f"{path.relative_to(ROOT)}: {node.name} has {lines} lines")
    assert not long, "\n".join(long)


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """The functions of `source` longer than `limit` lines, with their length."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
            lines = node.end_lineno - node.lineno + 1
            if lines > limit:
                found.append(f"{node.name} has {lines} lines")
    return found


def test_no_function_is_too_long_to_read() -> None:
    long = [f"{path.relative_to(ROOT)}: {found}" for path in sources() for found in long_functions(path.read_text())]
    assert not long, "\n".join(long)


def test_the_function_check_counts_lines() -> None:
    body = "\n".join(f"    x = {n}" for n in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n") == [f"f has {MAX_FUNCTION_LINES + 1} lines"]
    assert long_functions(f"def f():\n{body}\n", limit=MAX_FUNCTION_LINES + 1) == []


def test_every_path_the_architecture_names_exists() -> None:
    text = ARCHITECTURE.read_text()
    named = set(re.findall(r"`((?:engines|service|proto|seeds|tests|clients)/[\w./<>-]*)`", text))
    named |= set(re.findall(r"^(service/[\w/]+/)", text, re.M))  # the diagram's packages
    assert len(named) > 20
    missing = []
    for path in sorted(named):
        if "<" in path:  # a pattern such as engines/<kind>/
            continue
        if not (ROOT / path).exists():
            missing.append(path)
    assert not missing, f"docs/ARCHITECTURE.md names paths that do not exist: {missing}"


def test_the_architecture_names_every_package_of_the_service() -> None:
    text = ARCHITECTURE.read_text()
    packages = sorted(p.parent.relative_to(ROOT) for p in ROOT.glob("service/*/__init__.py"))
    unnamed = [str(p) for p in packages if f"{p}/" not in text]
    assert not unnamed, f"docs/ARCHITECTURE.md does not describe {unnamed}"
