"""The attack bench's report (attacks.py): a table of every class, the honest player's
figures beside the attacker's, each class's target met or not, written into its section
of docs/SECURITY.md (between markers: service/bench/sections.py) and printed."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from service.bench import sections
from service.bench.attacks import TARGET_RATIO, AttackFigures, AttackProfile
from service.bench.report.machine import machine

SECTION = "attacks"


def _ms(seconds: float) -> str:
    return "–" if math.isnan(seconds) else f"{seconds * 1e3:,.1f}"


def _cpu(seconds: float) -> str:
    """Seconds of CPU, in the unit that reads best."""
    if math.isnan(seconds):
        return "–"
    if seconds >= 0.1:
        return f"{seconds:,.2f} s"
    return f"{seconds * 1e3:,.2f} ms" if seconds >= 1e-4 else f"{seconds * 1e6:,.0f} µs"


def _ratio(value: float) -> str:
    return "–" if math.isnan(value) else f"×{value:,.2f}"


def _calls(figures: AttackFigures) -> str:
    quiet, attacked = figures.quiet, figures.attacked
    failed = {code: attacked.failures.count(code) for code in sorted(set(attacked.failures))}
    said = ", ".join(f"{n} {code}" for code, n in failed.items()) or "0"
    return f"{len(quiet.latencies):,} / {len(attacked.latencies):,} ({said})"


def _outcomes(figures: AttackFigures) -> str:
    ranked = sorted(figures.outcomes.items(), key=lambda item: (-item[1], item[0]))
    return "; ".join(f"{outcome}: {count:,}" for outcome, count in ranked) or "none"


def verdict(figures: AttackFigures) -> str:
    return "met" if figures.met else "**not met**"


def table(figures: Sequence[AttackFigures]) -> list[str]:
    lines = [
        "| attack | honest calls quiet / attacked (failed) | honest p50 ms quiet → attacked "
        "| honest p99 ms quiet → attacked | p99 ratio | attacker's requests | how they ended "
        "| attacker's bytes | server CPU: the attack's, a request | attacker's CPU | target |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        lines.append(
            f"| {f.attack} | {_calls(f)} | {_ms(f.quiet.p50)} → {_ms(f.attacked.p50)} "
            f"| {_ms(f.quiet.p99)} → {_ms(f.attacked.p99)} | {_ratio(f.ratio)} "
            f"| {f.requests:,} ({f.unit}) | {_outcomes(f)} | {f.sent:,} "
            f"| {_cpu(f.attack_cpu)}, {_cpu(f.cpu_per_request)} | {_cpu(f.attacker_cpu)} | {verdict(f)} |"
        )
    return lines


def section(figures: Sequence[AttackFigures], profile: AttackProfile, command: str) -> list[str]:
    """The section of docs/SECURITY.md the attack bench writes (its heading included)."""
    met = sum(f.met for f in figures)
    lines = [
        "### Measured: the attack bench",
        "",
        f"Written by `{command}`"
        + (" (the quick profile: it checks every figure is produced; **not measurements**)." if profile.quick else "."),
        f"One server on the Redis store (deploy/redis.conf), windows of {profile.window:g} s: for each class the "
        "honest player (Pirates against a greedy bot over gRPC, `GetGame` then a move, from 127.0.0.1) alone, "
        "then beside the attack (from 127.0.0.2 to 127.0.0.9), back to back, so each ratio compares two windows "
        "measured side by side. Its calls are `GetGame` and `SubmitCommand` (the bot's reply included), each "
        "timed (and a `CreateGame` when a game ends, not timed); a failed call is one that ended with any "
        "status but OK (no retries). The server's CPU is its "
        "process's and its heavy workers' (/proc) over the attack's whole time (its window, then the requests "
        "it still had in flight), less the honest player's calls at their quiet cost; then over the attacker's "
        "requests. The attacker's CPU is the bench's own meanwhile: the attackers share the machine's cores "
        "with the server, as a co-tenant would. "
        f"The target: the honest p99 at most {TARGET_RATIO:g}× its quiet p99 and no failed call; "
        f"**{met} of {len(figures)} classes met it** in this run.",
        "",
        *table(figures),
        "",
        "| machine | |",
        "|---|---|",
        *(f"| {name} | {value} |" for name, value in machine()),
    ]
    return lines


def write(output: Path, figures: Sequence[AttackFigures], profile: AttackProfile, command: str) -> None:
    """Rewrites the attack bench's section of `output` (docs/SECURITY.md), the rest kept."""
    existing = output.read_text() if output.exists() else "# Security\n"
    output.parent.mkdir(parents=True, exist_ok=True)
    block = sections.marked(SECTION, section(figures, profile, command))
    output.write_text(sections.splice(existing, SECTION, block))
