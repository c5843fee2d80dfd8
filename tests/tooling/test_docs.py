"""The README and the documents of docs/ hold together: every link between them (and to
the files they name) resolves, anchors included, and every `ludotheque` command their sh
blocks show parses."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from service.cli import build_parser
from tests.support.server import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def prose(path: Path) -> str:
    """The page without its fenced code blocks (a `#` line in a shell block is no heading)."""
    return re.sub(r"^```.*?^```", "", path.read_text(), flags=re.S | re.M)


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for the page's headings."""
    headings = re.findall(r"^#{1,6} (.+)$", prose(path), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_link_resolves(document: Path) -> None:
    broken = []
    for target in LINK.findall(prose(document)):
        if re.match(r"^[a-z]+:", target):
            continue  # another site
        file, _, anchor = target.partition("#")
        path = (document.parent / file).resolve() if file else document
        if not path.exists() or (anchor and path.suffix == ".md" and anchor not in anchors(path)):
            broken.append(target)
    assert broken == [], f"{document.relative_to(ROOT)}: broken links"


def ludotheque_commands() -> list[list[str]]:
    """The words of every `ludotheque` command in the documents' sh blocks."""
    found = []
    for document in DOCUMENTS:
        for block in re.findall(r"```sh\n(.*?)```", document.read_text(), re.S):
            for line in re.sub(r"\\\n\s*", " ", block).splitlines():
                # variables set for the command, then the command
                command = re.match(r"^(?:[A-Z_]+=\S*\s+)*(?:\.venv/bin/)?ludotheque\s(.*)$", line)
                if command:
                    found.append(shlex.split(command.group(1).split(" #", 1)[0]))
    return found


def test_every_ludotheque_command_parses() -> None:
    commands = ludotheque_commands()
    shown = {words[0] for words in commands}
    assert shown >= {"serve", "play", "export", "import", "verify", "replay", "bench"}
    for words in commands:
        if "--help" not in words:
            build_parser().parse_args(words)  # an unknown command or flag exits here
