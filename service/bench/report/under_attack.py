"""The section under attack: a victim's moves, quiet and beside each attack class
(service/bench/attacks.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.bench.run import Results

from service.bench.report.numbers import ms


def attacks_table(results: Results) -> list[str]:
    """The victim's moves beside each attack class (service/bench/attacks.py)."""
    if not results.attacks:
        return ["Not measured in this run."]
    quiet = results.attacks[0]
    lines = [
        "One server (memory store); a victim plays Mooki against a bot over gRPC, one `SubmitCommand` at a "
        "time, first quiet, then beside each attack, each for one window. The attacker's bytes are what it "
        "wrote to its sockets; the server's CPU is its process's over the window (the victim's moves "
        "included). Refused: requests answered 429, or connections the server cut (a `GOAWAY`, a 408). "
        "Catch-ups never read are streams from version 1 of a long game, on sockets with deep receive "
        "buffers (and, over gRPC, the largest window HTTP/2 allows), never read. "
        "docs/SECURITY.md lists each attack class with its limit and its test.",
        "",
        "| attack | attacker's requests | attacker's bytes sent | refused | server CPU | victim's moves "
        "| move p50 | move p99 | quiet p50 | quiet p99 | victim's failed calls |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in results.attacks:
        failed = {code: f.victim_failures.count(code) for code in sorted(set(f.victim_failures))}
        lines.append(
            f"| {f.attack} | {f.attacker_requests:,} | {f.attacker_bytes:,} | {f.refused:,} "
            f"| {f.server_cpu:.2f} s in {f.seconds:.1f} s | {len(f.victim_moves):,} | {ms(f.p50)} ms "
            f"| {ms(f.percentile(0.99))} ms | {ms(quiet.p50)} ms | {ms(quiet.percentile(0.99))} ms "
            f"| {', '.join(f'{n} {code}' for code, n in failed.items()) or '0'} |"
        )
    return lines
