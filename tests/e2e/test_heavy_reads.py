"""Heavy reads in a real server (issue 42, item 1): the export of a long game over HTTP is
made by a worker process of the server's (`--heavy-workers`), and a finished game's again
is served from those kept (that a worker's answer is the loop's: test_heavy_reads.py in
tests/service)."""

from __future__ import annotations

import re
import urllib.request

from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

BOTS = [{"name": f"Bot {i}", "bot": "random"} for i in range(3)]  # (long games: thousands of events)
SERVED = 'ludotheque_heavy_reads_total{outcome="served",read="ExportGame"}'
KEPT = "ludotheque_export_cache_hits_total"


def metric(server: ServerProcess, sample: str) -> float:
    with urllib.request.urlopen(f"{server.http}/metrics", timeout=10) as response:
        found = re.search(rf"^{re.escape(sample)} (\S+)$", response.read().decode(), re.M)
    return float(found.group(1)) if found else 0.0


def exported(server: ServerProcess) -> tuple[dict[str, object], dict[str, object]]:
    """A long game of bots, created by the admin, and its export as seat 1 sees it (twice)."""
    admin = Rest(server.http, ADMIN_TOKEN)
    created = admin.post("/v1/games", {"kind": "pirates", "seats": BOTS}).json
    assert int(created["game"]["version"]) > 300  # past --heavy-read-events
    path = f"/v1/games/{created['gameId']}:export?asSeat=1"
    return admin.get(path).json, admin.get(path).json


def test_a_long_export_is_made_by_a_worker_once() -> None:
    with running_server() as server:
        first, again = exported(server)
        assert first == again
        assert metric(server, SERVED) == 1 and metric(server, KEPT) == 1
        assert metric(server, "ludotheque_heavy_reads_in_flight") == 0
