"""Every snippet of the documents a newcomer reads (README.md, docs/CLIENTS.md,
docs/API.md, clients/*/README.md) runs as written, against a real server; only the
server's address changes. This module lists each code block of those documents and
where it runs, fails on a block that nothing runs, and runs those no other test does:
the Python clients' READMEs, docs/CLIENTS.md's Play session, game logs and terminal
games, and the README's terminal games.

Commands for the terminal run in a directory of their own where `.venv/bin/ludotheque`
is this checkout's `python -m service` (so a block runs as a reader types it at the
repository's root); `ludotheque play` gets its answers on stdin ("1": the first move)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.server import ADMIN_TOKEN, ROOT, ServerProcess, running_server

DOCUMENTS = (
    "README.md",
    "docs/CLIENTS.md",
    "docs/API.md",
    "clients/python/README.md",
    "clients/typescript/README.md",
    "clients/web/README.md",
)
NODE = "clients/typescript/test/readme.test.ts"
PAGES = "tests/tooling/test_typescript_pages.py"
HERE = "tests/tooling/test_doc_snippets.py"
# Every block with a language, in order: (document, its section, the language) -> what runs it.
RUN_BY: list[tuple[tuple[str, str, str], str]] = [
    (("README.md", "The two commands", "sh"), "the suite itself: `make test` runs it, `make run` a server"),
    (("README.md", "A two-minute tour", "python"), "tests/tooling/test_readme.py"),
    (("README.md", "A two-minute tour", "sh"), HERE),
    (("docs/CLIENTS.md", "A Play session", "python"), HERE),
    (("docs/CLIENTS.md", "TypeScript, with Connect", "ts"), NODE),
    (("docs/CLIENTS.md", "Playing in the terminal", "sh"), HERE),
    (("docs/CLIENTS.md", "Game logs: export, verify, replay, import", "sh"), HERE),
    (("docs/API.md", "gRPC, with grpcurl or buf curl", "sh"), "tests/tooling/test_api_doc.py"),
    (("docs/API.md", "gRPC, with grpcurl or buf curl", "sh"), "tests/tooling/test_api_doc.py (its bodies, parsed)"),
    (("docs/API.md", "REST, with curl", "sh"), "tests/tooling/test_api_doc.py"),
    (("docs/API.md", "REST, with curl", "sh"), "tests/tooling/test_api_doc.py"),
    (("docs/API.md", "REST, with curl", "js"), PAGES),
    (("docs/API.md", "Play over WebSocket", "js"), NODE),
    (("docs/API.md", "Connect", "sh"), "tests/tooling/test_api_doc.py"),
    (("docs/API.md", "Descriptions, languages and choices", "sh"), "tests/tooling/test_api_doc.py"),
    (("docs/API.md", "Playing online", "sh"), "tests/tooling/test_api_doc.py"),
    (("clients/python/README.md", "ludotheque-client", "python"), HERE),
    (("clients/python/README.md", "ludotheque-client", "python"), HERE),
    (("clients/python/README.md", "asyncio", "python"), HERE),
    (("clients/typescript/README.md", "A Vite app in minutes", "sh"), PAGES),
    (("clients/typescript/README.md", "A Vite app in minutes", "js"), PAGES),
    (("clients/typescript/README.md", "A game in fifteen lines", "ts"), NODE),
    (("clients/typescript/README.md", "A live game: GameSession", "ts"), NODE),
    (("clients/typescript/README.md", "React: useGameSession", "tsx"), PAGES),
    (("clients/typescript/README.md", "A page without a framework", "ts"), PAGES),
    (("clients/typescript/README.md", "Without the wrapper", "ts"), NODE),
]


@dataclass(frozen=True, slots=True)
class Block:
    document: str
    section: str  # the nearest heading above it
    language: str  # "" for text (a listing, a tree)
    code: str


def blocks(document: str) -> list[Block]:
    found, section = [], ""
    lines = iter((ROOT / document).read_text().splitlines(keepends=True))
    for line in lines:
        if line.startswith("#") and not line.startswith("#!"):
            section = line.lstrip("#").strip()
        elif line.startswith("```"):
            language, body = line[3:].strip(), []
            for inner in lines:
                if inner.startswith("```"):
                    break
                body.append(inner)
            found.append(Block(document, section, language, "".join(body)))
    return found


def block(document: str, section: str, language: str, index: int = 0) -> str:
    matching = [b for b in blocks(document) if b.section == section and b.language == language]
    assert len(matching) > index, f"{document}: no {language} block {index} under {section!r}"
    return matching[index].code


def test_every_snippet_runs_somewhere() -> None:
    shown = [(b.document, b.section, b.language) for document in DOCUMENTS for b in blocks(document) if b.language]
    listed = [where for where, _ in RUN_BY]
    assert shown == listed, "a code block is new, moved or gone: make a test run it, and list it in RUN_BY"
    for _, runner in RUN_BY:
        assert runner.startswith("the suite") or (ROOT / runner.split(" ")[0]).is_file(), runner


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with running_server() as process:
        yield process


def as_written(code: str, server: ServerProcess) -> str:
    """The snippet against the test server instead of the documents' local one."""
    return code.replace("localhost:50051", server.target).replace("localhost:8080", f"127.0.0.1:{server.http_port}")


def test_the_python_clients_readme_runs(server: ServerProcess) -> None:
    first, online = (block("clients/python/README.md", "ludotheque-client", "python", i) for i in (0, 1))
    printed: list[str] = []
    namespace = {"print": lambda *args: printed.append(" ".join(map(str, args)))}
    exec(compile(as_written(first + online, server), "clients/python/README.md", "exec"), namespace)
    assert "stars to" in printed[0]  # the outcome
    assert printed[1].startswith("1: The cards are shuffled")  # the events, readable
    assert printed[-1] == "[1]"  # Robin's presence
    asynchronous = block("clients/python/README.md", "asyncio", "python")
    printed.clear()
    exec(compile(as_written(asynchronous, server), "clients/python/README.md", "exec"), namespace)
    assert printed[0].startswith("1: The cards are shuffled") and "stars to" in printed[-1]


def test_the_play_session_of_docs_clients_ends_with_the_game(server: ServerProcess) -> None:
    printed: list[str] = []
    namespace = {"print": lambda *args: printed.append(" ".join(map(str, args)))}
    code = as_written(block("docs/CLIENTS.md", "A Play session", "python"), server)
    exec(compile(code, "docs/CLIENTS.md", "exec"), namespace)
    versions = [int(line.split(":")[0]) for line in printed]
    assert versions == list(range(1, len(versions) + 1)) and len(versions) > 30  # a whole game, in order


@pytest.fixture
def terminal(tmp_path: Path) -> Path:
    """A directory where `.venv/bin/ludotheque` is this checkout's command."""
    command = tmp_path / ".venv" / "bin" / "ludotheque"
    command.parent.mkdir(parents=True)
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m service "$@"\n')
    command.chmod(0o755)
    return tmp_path


def run_sh(script: str, cwd: Path, answers: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    python_path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        input=answers,
        env={**os.environ, "PYTHONPATH": python_path, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def command_lines(code: str) -> list[str]:
    return [line for line in code.splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize(
    ("document", "section"), [("README.md", "A two-minute tour"), ("docs/CLIENTS.md", "Playing in the terminal")]
)
def test_the_terminal_games_play_to_the_end(document: str, section: str, terminal: Path, server: ServerProcess) -> None:
    lines = command_lines(block(document, section, "sh"))
    assert lines and all(" play " in line for line in lines)
    for line in lines:
        done = run_sh(as_written(line, server), terminal, answers="1\n" * 3000)
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert re.search(r"^Game over\. .+", done.stdout, re.M) or "Partie terminée" in done.stdout, line


def test_the_game_logs_walk_of_docs_clients_runs(terminal: Path, server: ServerProcess) -> None:
    script = as_written(block("docs/CLIENTS.md", "Game logs: export, verify, replay, import", "sh"), server)
    done = run_sh(script, terminal, answers="n\nn\np\nq\n", LUDOTHEQUE_ADMIN_TOKEN=ADMIN_TOKEN)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "wrote the complete log (admin)" in done.stderr and "wrote seat 1's log" in done.stderr
    assert len(re.findall(r"^valid: \d+ events of a mooki game .*, finished$", done.stdout, re.M)) == 2  # verify twice
    assert done.stdout.count("Version 17 of ") >= 3 and "--- version 16\n+++ version 17" in done.stdout
    assert re.search(r"^game_id: \S+$", done.stdout, re.M)  # the fork, imported as a new game
