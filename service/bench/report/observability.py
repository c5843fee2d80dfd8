"""The section on what tracing and the access log add to a move
(service/bench/observation.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.bench.run import Results


def observation_section(results: Results) -> list[str]:
    """What tracing and the access log add to a move (service/bench/observation.py)."""
    figures = results.observation
    if figures is None:
        return []
    names = {
        "off": "tracing off, no access log line (the servers above)",
        "sampled 0": "tracing on, sampling 0",
        "sampled 1": "tracing on, sampling 1 (spans batched and encoded as OTLP)",
        "access log": "tracing off, the access log's JSON line written",
    }
    out = [
        "## Observability: what tracing and the access log cost",
        "",
        f"GameApp's {figures.kind} moves as in the line above, each call (a GetGame and a SubmitCommand per move) "
        "inside the request edge of every transport and, with tracing on, the gRPC instrumentation's server span; "
        "each mode in a fresh process (`service/bench/observation.py`).",
        "",
        "| mode | CPU per move | added |",
        "|---|---|---|",
    ]
    for mode, name in names.items():
        added = "" if mode == "off" else f"{figures.extra_us(mode):+,.0f} µs"
        out.append(f"| {name} | {figures.us_per_move[mode]:,.0f} µs | {added} |")
    out += ["", f"With sampling 1 a move records {figures.spans_per_move:.1f} spans.", ""]
    return out
