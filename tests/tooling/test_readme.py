"""The README's tour works as written: its Python block runs against a real server. The
README stays what a newcomer reads to the end: under 300 lines, the rest in docs/."""

from __future__ import annotations

import re
import sys

from tests.support.server import ROOT, running_server

README = (ROOT / "README.md").read_text()


def said(lines: list[str], at: int) -> str | None:
    """What the tour says the `print` on line `at` (from 1) prints: its `# →` comment,
    on that line or the comment lines under it; None: it does not say."""
    for line in lines[at - 1 :]:
        code, _, comment = line.partition("#")
        if line is not lines[at - 1] and code.strip():
            return None
        if comment.strip().startswith("→"):
            return comment.strip().removeprefix("→").strip()
    return None


def test_the_python_tour_prints_what_it_says() -> None:
    """Run as written against a real server: each `print` prints something, and what
    its `# →` comment shows (whitespace aside, `...` standing for anything)."""
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block is not None
    code = block.group(1)
    printed: list[tuple[int, str]] = []

    def record(*values: object) -> None:
        printed.append((sys._getframe(1).f_lineno, " ".join(str(value) for value in values)))

    with running_server() as server:
        exec(compile(code.replace("localhost:50051", server.target), "README.md", "exec"), {"print": record})
    lines, checked = code.splitlines(), 0
    for at, text in printed:
        text = " ".join(text.split())
        assert text, f"the tour's line {at} prints an empty line: {lines[at - 1].strip()}"
        sample = said(lines, at)
        if sample is not None:
            pattern = ".*".join(re.escape(" ".join(part.split())) for part in sample.split("..."))
            assert re.fullmatch(pattern, text), f"the tour says line {at} prints {sample!r}, it prints {text!r}"
            checked += 1
    assert checked >= 5, "the tour shows what its prints print"


def test_the_readme_is_short_and_links_every_document() -> None:
    assert len(README.splitlines()) < 300, "the README is for reading to the end: move the detail to docs/"
    documents = {path.name for path in (ROOT / "docs").glob("*.md")}
    linked = set(re.findall(r"\]\(docs/([A-Z_]+\.md)\)", README))
    assert linked == documents, f"the README does not link {sorted(documents - linked)}"
