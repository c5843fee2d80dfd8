"""`ludotheque serve --workers N`: N processes on one port pair, sharing Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from ludotheque import Client

from tests.support.redis import RedisServer
from tests.support.server import ROOT, ServerProcess, running_server
from tests.support.stores import PATIENT_REDIS
from tests.support.waiting import wait_until


def listening_pids(port: int) -> set[int]:
    """The processes with a listening TCP socket on `port` (from /proc)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # 0A: LISTEN
                inodes.add(fields[9])
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            links = {os.readlink(fd) for fd in (entry / "fd").iterdir()}
        except OSError:
            continue
        if any(f"socket:[{inode}]" in links for inode in inodes):
            pids.add(int(entry.name))
    return pids


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(child) for child in (task / "children").read_text().split())
    return found


@pytest.fixture(scope="module")
def two_workers(redis_server: RedisServer) -> Iterator[tuple[ServerProcess, list[int]]]:
    """One `serve --workers 2` for the module (starting one takes seconds); the test
    that kills a worker and stops the server comes last."""
    env = {"LUDOTHEQUE_STORE": redis_server.url, "LUDOTHEQUE_WORKERS": "2", **PATIENT_REDIS}
    with running_server(env=env) as server:
        yield server, sorted(children(server.process.pid))


def test_two_workers_listen_on_both_ports_and_share_games_and_tokens(
    two_workers: tuple[ServerProcess, list[int]],
) -> None:
    server, workers = two_workers
    assert len(workers) == 2
    assert listening_pids(server.grpc_port) == set(workers) == listening_pids(server.http_port)
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
    for _ in range(8):  # new connections, spread over the workers by the kernel
        with Client(server.target, created.seat_tokens[0]) as cleo:
            assert cleo.get_game(created.game_id).viewer.seat == 0


def test_a_worker_that_dies_is_replaced_and_sigterm_stops_them_all(
    two_workers: tuple[ServerProcess, list[int]],
) -> None:
    server, workers = two_workers
    os.kill(workers[0], signal.SIGKILL)
    wait_until(lambda: len(listening_pids(server.grpc_port) - {workers[0]}) == 2, 30, "a new worker")
    replaced = sorted(children(server.process.pid))
    assert workers[1] in replaced and workers[0] not in replaced
    assert server.stop(signal.SIGTERM) == 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in replaced)


def test_several_workers_need_a_shared_store() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service", "serve", "--workers", "2", "--grpc-port", "0", "--http-port", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "--workers > 1 needs a shared store" in done.stderr
    assert done.stdout == ""
