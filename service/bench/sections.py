"""Sections of docs/PERFORMANCE.md written by a benchmark of their own (`ludotheque bench
--capacity`, `--versus`, `--bots-beside`): each sits between two markers, so that its benchmark rewrites
it alone and the main benchmark, rewriting the rest of the file, keeps it as it was."""

from __future__ import annotations

import re
from collections.abc import Sequence

NAMES = ("capacity", "versus", "bots-beside")  # in the order they stand in the file
ANCHOR = "\n## Profile and what was removed"  # they go before it, if they are new


def start(name: str) -> str:
    return f"<!-- {name}: written by `ludotheque bench --{name}` -->"


def end(name: str) -> str:
    return f"<!-- /{name} -->"


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(start(name)) + r".*?" + re.escape(end(name)), re.DOTALL)


def marked(name: str, lines: Sequence[str]) -> list[str]:
    """`lines` between the section's markers."""
    return [start(name), *lines, end(name)]


def splice(existing: str, name: str, block: Sequence[str]) -> str:
    """`existing` with its section `name` replaced by `block` (marked lines); a new one
    goes before the profile section, else at the end."""
    text = "\n".join(block)
    pattern = _pattern(name)
    if pattern.search(existing):
        return pattern.sub(lambda _: text, existing)
    anchor = existing.find(ANCHOR)
    if anchor < 0:
        return existing.rstrip("\n") + "\n\n" + text + "\n"
    return existing[: anchor + 1] + text + "\n\n" + existing[anchor + 1 :]


def keep(old: str, new: str) -> str:
    """`new` (the main benchmark's report) with every section `old` had."""
    for name in NAMES:
        found = _pattern(name).search(old)
        if found:
            new = splice(new, name, found.group(0).splitlines())
    return new
