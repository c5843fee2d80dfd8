"""The benchmark's report: docs/PERFORMANCE.md (method, commands, machine, figures,
targets) and a short summary on stdout, one module per part:

- `document`: the report in order, and the summary;
- `method`, `machine`: how it measures, and where a report comes from;
- `targets`, `analysis`: the targets met or missed, and why, figure by figure;
- `transports`: moves per path and store, the transports' floor, StreamEvents, memory, scale;
- `in_process`: engines and replay, ReplayGame, the game's own work, long games;
- `store_alone`, `observability`: the store's own cost, what tracing and the access log
  cost (the attacks have a run of their own: attacks_report.py);
- `profile_notes`: the closing section, profiles and what was removed;
- `numbers`: how a figure is written, and the paths' names.

The capacity and boardgame.io sections are written by runs of their own
(capacity_report.py, versus.py; sections.py keeps them)."""

from __future__ import annotations

from service.bench.report.document import markdown, summary
from service.bench.report.machine import command_line
from service.bench.report.numbers import PATH_NAMES

__all__ = ["PATH_NAMES", "command_line", "markdown", "summary"]
