"""`ludotheque bench --attacks --quick` runs every class of the attack bench in seconds and
writes its section of docs/SECURITY.md, the rest of the file kept: every class's figures
are there and well formed. Nothing here asserts what a window reached (a target met, a
latency, a count beyond the least the bench makes by construction): on a busy machine a
half-second window proves nothing, and the suite must pass there."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from service.bench import sections
from service.bench.attacks import QUICK, names
from tests.e2e.test_bench import NUMBER, bench, figure
from tests.support.server import ROOT

MS = NUMBER + "|–"


def _calls(cell: str) -> None:
    """`quiet / attacked (failed)`: the honest player's calls in both windows."""
    found = re.fullmatch(rf"({NUMBER}) / ({NUMBER}) \((.+)\)", cell)
    assert found, cell
    failed = found.group(3)
    assert failed == "0" or re.fullmatch(r"\d+ [A-Z_]+(, \d+ [A-Z_]+)*", failed), cell
    failures = 0 if failed == "0" else sum(int(part.split()[0]) for part in failed.split(", "))
    # The player makes so many calls a window at least, unless that many failed first.
    assert figure(found.group(1)) >= QUICK.least_calls, cell
    assert figure(found.group(2)) >= QUICK.least_calls or failures >= QUICK.least_calls, cell


def _outcomes(cell: str, requests: float) -> None:
    """`outcome: count; ...`, the counts adding up to the requests."""
    if cell == "none":
        assert requests == 0
        return
    counts = [figure(part.rsplit(": ", 1)[1]) for part in cell.split("; ")]
    assert all(part.rsplit(": ", 1)[0] for part in cell.split("; ")), cell
    assert sum(counts) == requests, cell


def _cpu(cell: str) -> None:
    assert re.fullmatch(rf"(?:{NUMBER}) (?:s|ms|µs)|–", cell), cell


@pytest.mark.slow
def test_a_quick_attack_run_reports_every_class_and_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    output = tmp_path / "SECURITY.md"
    shutil.copy(ROOT / "docs" / "SECURITY.md", output)
    report = bench(output, "--attacks")
    original = (ROOT / "docs" / "SECURITY.md").read_text()
    # Only its section changed: the rest of the file as it was.
    assert report.count(sections.start("attacks")) == 1
    assert sections.splice(report, "attacks", ["X"]) == sections.splice(original, "attacks", ["X"])
    section = report.split(sections.start("attacks"), 1)[1].split(sections.end("attacks"), 1)[0]
    assert "not measurements" in section
    assert "### Measured: the attack bench" in section
    lines = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("|---")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    attacks = [row for row in rows[1:] if len(row) == 11]  # (the machine's table has two columns)
    assert [row[0] for row in attacks] == names(QUICK)  # every class, in order
    for row in attacks:
        _calls(row[1])
        for cell in (row[2], row[3]):  # p50 and p99, quiet → attacked
            quiet, attacked = cell.split(" → ")
            assert re.fullmatch(MS, quiet) and re.fullmatch(MS, attacked), cell
        assert re.fullmatch(rf"×(?:{NUMBER})|–", row[4]), row
        requests = re.fullmatch(rf"({NUMBER}) \((.+)\)", row[5])
        assert requests, row
        _outcomes(row[6], figure(requests.group(1)))
        assert figure(row[7]) >= 0, row  # bytes sent
        spent, per_request = row[8].split(", ")
        _cpu(spent)
        _cpu(per_request)
        _cpu(row[9])
        assert row[10] in ("met", "**not met**"), row
    met = re.search(r"\*\*(\d+) of (\d+) classes met it\*\*", section)
    assert met and int(met.group(2)) == len(attacks)
    assert int(met.group(1)) == sum(row[10] == "met" for row in attacks)
