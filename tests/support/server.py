"""Starting the real server (`python -m service serve`) on random ports for tests.

The server prints one JSON line on stdout once it listens; reading it is how a test
waits for the server, without sleeping."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Where the servers the tests start run from: this checkout, or another one named by
# LUDOTHEQUE_TEST_SERVER_ROOT (to see a test fail against the code before a fix).
SERVER_ROOT = Path(os.environ.get("LUDOTHEQUE_TEST_SERVER_ROOT") or ROOT)
ADMIN_TOKEN = "e2e-admin-token-0123456789abcdef-0123456789"
SECRET = "e2e-secret-0123456789abcdef-0123456789abcdef"


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    grpc_port: int
    http_port: int
    log_path: Path

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout)


def start_server(
    args: list[str] | None = None, env: Mapping[str, str] | None = None, module: str = "service"
) -> ServerProcess:
    """`python -m <module> serve <args>`: the server (or tests.support.traced_server)."""
    log = Path(tempfile.mkstemp(prefix="ludotheque-server-", suffix=".log")[1])
    environment = {
        **os.environ,
        "LUDOTHEQUE_SECRET": SECRET,
        "LUDOTHEQUE_ADMIN_TOKEN": ADMIN_TOKEN,
        "LUDOTHEQUE_HOST": "127.0.0.1",
        "LUDOTHEQUE_GRPC_PORT": "0",
        "LUDOTHEQUE_HTTP_PORT": "0",
        "LUDOTHEQUE_SHUTDOWN_GRACE": "2",
        # The suites create many games, bots-only ones too, from one address: no creation
        # limits unless a test asks for them (tests/e2e/test_access.py has theirs).
        "LUDOTHEQUE_CREATE_RATE": "0",
        "LUDOTHEQUE_LIVE_GAMES": "0",
        "LUDOTHEQUE_BOT_GAME_RATE": "1000000",
        # Nor limits on connections and join codes from that one address (tests/hostile
        # has theirs).
        "LUDOTHEQUE_MAX_CONNECTIONS_PER_CLIENT": "0",
        "LUDOTHEQUE_JOIN_CODE_RATE": "0",
        # Heavy workers at the loop's priority: niced, they wait behind every other process
        # of a busy machine (the suite's other worker, a build) past a client's deadline.
        # What the niceness buys the moves is measured by `ludotheque bench --bots-beside`.
        "LUDOTHEQUE_HEAVY_NICENESS": "0",
        **(env or {}),
    }
    with log.open("w") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", module, "serve", *(args or [])],
            cwd=SERVER_ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=log_file,
            text=True,
        )
    assert process.stdout is not None
    line = process.stdout.readline()  # blocks until the server listens (or dies)
    if not line:
        process.wait(10)
        raise RuntimeError(f"the server did not start:\n{log.read_text()}")
    ports = json.loads(line)
    return ServerProcess(process, ports["grpc_port"], ports["http_port"], log)


@contextmanager
def running_server(
    args: list[str] | None = None, env: Mapping[str, str] | None = None, module: str = "service"
) -> Iterator[ServerProcess]:
    server = start_server(args, env, module)
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.stop(signal.SIGKILL)
        server.log_path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """One real server for the tests of a module (the end-to-end and web tests')."""
    with watched_server() as process:
        yield process


@contextmanager
def watched_server(
    args: list[str] | None = None, env: Mapping[str, str] | None = None, module: str = "service"
) -> Iterator[ServerProcess]:
    """A running_server that must still be running when the tests are done with it: one
    that died meanwhile fails them, with its log."""
    with running_server(args, env, module) as server:
        yield server
        assert server.process.poll() is None, f"the server died:\n{server.log()}"
