"""`python -m service.bench.connection_floor` (what an idle connection costs a server in
memory: a bare asyncio server, a bare aiohttp WebSocket, the candidate libraries for
`Play`'s connection, boardgame.io's server and ours, which PERFORMANCE.md quotes) runs
and reports every server with every connection held.
No size is asserted: a few connections measure little, and CI machines vary."""

from __future__ import annotations

import subprocess
import sys

from tests.support.server import ROOT


def test_the_connection_floor_holds_every_connection_of_every_server() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service.bench.connection_floor", "20", "0.2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split("|")[1:4] for line in done.stdout.splitlines() if line.startswith("| ") and "KiB" in line]
    assert [(server.split("(")[0].split(":")[0].strip(), held.strip()) for server, held, _ in rows] == [
        ("a bare asyncio server", "20"),
        ("a bare aiohttp WebSocket", "20"),
        ("aiohttp's handshake, then wsproto 1.3 on an asyncio Protocol", "20"),
        ("websockets 17.4's asyncio server", "20"),
        ("picows 2.3's server", "20"),
        ("boardgame.io 0.50's server", "20"),
        ("ours", "20"),
    ]
