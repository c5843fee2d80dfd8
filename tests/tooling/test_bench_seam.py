"""The benchmarks reach the service through its public API or through one declared
seam (service/bench/seam.py): no other bench module imports the service's packages,
so a refactor of service/app, service/store, service/api or service/cli breaks the
seam alone, never a benchmark."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.tooling.test_architecture import ROOT, imported, module_name

SEAM = "service.bench.seam"
# What a bench module other than the seam may import of ours: its own package. The
# engines are a public contract of their own (engines/contract.py), the generated
# client (`ludotheque`) the public API.
INTERNALS = ("service",)
ALLOWED = ("service.bench",)


def seam_violations(module: str, source: str) -> list[str]:
    """The imports of bench module `module` (its source given) that reach inside the
    service without the seam."""
    if module == SEAM or not (module == "service.bench" or module.startswith("service.bench.")):
        return []
    found = []
    for name in sorted(imported(ast.parse(source), module)):
        inside = any(name == bad or name.startswith(bad + ".") for bad in INTERNALS)
        allowed = any(name == ok or name.startswith(ok + ".") for ok in ALLOWED)
        if inside and not allowed:
            found.append(f"{module} imports {name}: only {SEAM} may reach inside the service")
    return found


def bench_sources() -> list[Path]:
    return sorted(ROOT.glob("service/bench/**/*.py"))


def test_only_the_seam_imports_the_service() -> None:
    sources = bench_sources()
    assert len(sources) > 10 and ROOT / "service" / "bench" / "seam.py" in sources
    problems = [p for path in sources for p in seam_violations(module_name(path), path.read_text())]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("service.bench.micro", "from service.app.model import snapshots"),
        ("service.bench.micro", "from service.app import GameApp"),
        ("service.bench.store_cost", "from service.store.memory import MemoryStore"),
        ("service.bench.observation", "from service.api.edge import observed"),
        ("service.bench.observation", "from service.cli import telemetry"),
        ("service.bench.run", "import service.app.model.live"),
        ("service.bench.attacks", "from service import app"),
        ("service.bench.report.tables", "from ...app.model import envelopes"),
        ("service.bench.load", "def f():\n    from service.store.base import StoredEvent\n"),
    ],
)
def test_the_check_catches_a_benchmark_reaching_inside(module: str, source: str) -> None:
    assert seam_violations(module, source)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        (SEAM, "from service.app.model import snapshots"),
        ("service.bench.micro", "from service.bench import seam"),
        ("service.bench.micro", "from service.bench.seam import decision_rng"),
        ("service.bench.micro", "from engines.registry import ENGINES"),
        ("service.bench.load", "from ludotheque.v1 import game_service_pb2"),
        ("service.bench.report.tables", "from ..seam import in_process_app"),
        ("service.app.moves.moves", "from service.store.base import VersionConflict"),
    ],
)
def test_the_check_lets_the_seam_and_the_public_api_through(module: str, source: str) -> None:
    assert not seam_violations(module, source)
