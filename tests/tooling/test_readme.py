"""The README's tour works as written: its Python block runs against a real server. The
README stays what a newcomer reads to the end: under 300 lines, the rest in docs/."""

from __future__ import annotations

import re

from tests.support.server import ROOT, running_server

README = (ROOT / "README.md").read_text()


def test_the_python_tour_runs() -> None:
    block = re.search(r"```python\n(.*?)```", README, re.S)
    assert block is not None
    with running_server() as server:
        code = block.group(1).replace("localhost:50051", server.target)
        exec(compile(code, "README.md", "exec"), {"print": lambda *a, **k: None})


def test_the_readme_is_short_and_links_every_document() -> None:
    assert len(README.splitlines()) < 300, "the README is for reading to the end: move the detail to docs/"
    documents = {path.name for path in (ROOT / "docs").glob("*.md")}
    linked = set(re.findall(r"\]\(docs/([A-Z_]+\.md)\)", README))
    assert linked == documents, f"the README does not link {sorted(documents - linked)}"
