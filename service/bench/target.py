"""The system under test: a real server (`ludotheque serve`, one or more worker
processes), a redis-server of its own for the Redis store, and what /proc says
about their CPU time and memory."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REDIS_CONF = ROOT / "deploy" / "redis.conf"
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of the processes (every thread), from /proc/<pid>/stat."""
    total = 0
    for pid in pids:
        text = Path(f"/proc/{pid}/stat").read_text()
        fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
        total += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15
    return total / TICKS_PER_SECOND


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process and of every process under it (the server and its heavy
    workers), the children it already reaped included: utime + stime + cutime + cstime of
    each, from /proc/<pid>/stat. A child that ends moves its time into its parent's
    cutime (the heavy workers live as long as the server: none should)."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            text = Path(f"/proc/{current}/stat").read_text()
            pending.extend(children(current))
        except (FileNotFoundError, ProcessLookupError):  # ended meanwhile: its parent counts it
            continue
        fields = text[text.rindex(")") + 2 :].split()
        total += sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    return total / TICKS_PER_SECOND


def _status_field(status: Path, name: str) -> int:
    """One number of a /proc status file (the `name:` line's first word), 0 if it has none."""
    for line in status.read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    return 0


def wakeups(pids: list[int]) -> int:
    """Times the processes' threads slept and were woken again: their voluntary context
    switches (every thread's, /proc/<pid>/task/*/status; a thread that ends between two
    readings takes its count with it, and the server's threads live as long as it does)."""
    total = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
                total += _status_field(task / "status", "voluntary_ctxt_switches")
    return total


def rss_bytes(pids: list[int]) -> int:
    """Resident memory of the processes (VmRSS of /proc/<pid>/status)."""
    return sum(_status_field(Path(f"/proc/{pid}/status"), "VmRSS") * 1024 for pid in pids)


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.extend(int(child) for child in text)
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Redis:
    """A redis-server of the benchmark's own, with the deployment's configuration
    (deploy/redis.conf: append-only file, fsync on every write) when it is there."""

    process: subprocess.Popen[bytes]
    port: int
    directory: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @staticmethod
    def start(*options: str) -> Redis:
        """`options`: redis-server settings over the deployment's (e.g. "--appendfsync", "everysec")."""
        if shutil.which("redis-server") is None:
            raise SystemExit("the Redis benchmarks need redis-server on the PATH (apt-get install redis-server)")
        directory = Path(tempfile.mkdtemp(prefix="ludotheque-bench-redis-"))
        port = free_port()
        config = [str(REDIS_CONF)] if REDIS_CONF.exists() else ["--appendonly", "yes", "--appendfsync", "always"]
        process = subprocess.Popen(
            ["redis-server", *config, *options, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        redis = Redis(process, port, directory)
        deadline = time.monotonic() + 30
        while not redis.answers():
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("redis-server did not start")
            time.sleep(0.02)
        return redis

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def info(self, section: str) -> dict[str, str]:
        """One section of INFO, as its `name:value` lines."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as connection:
            connection.sendall(f"INFO {section}\r\n".encode())
            data = b""
            while b"\r\n" not in data:
                data += connection.recv(65536)
            head, _, data = data.partition(b"\r\n")  # $<length>
            length = int(head[1:])
            while len(data) < length:
                data += connection.recv(65536)
        lines = data[:length].decode().splitlines()
        return dict(line.split(":", 1) for line in lines if ":" in line and not line.startswith("#"))

    def used_memory(self) -> int:
        """Redis's own count of the bytes its data takes (INFO memory: used_memory)."""
        return int(self.info("memory")["used_memory"])

    def calls(self) -> int:
        """Commands Redis has run, but INFO (which the benchmark itself sends)."""
        stats = self.info("commandstats")
        return sum(
            int(value.split(",", 1)[0].removeprefix("calls="))
            for name, value in stats.items()
            if name != "cmdstat_info"
        )

    def cpu_times(self) -> tuple[float, float]:
        """The user and system CPU time Redis has used, every thread (INFO cpu)."""
        cpu = self.info("cpu")
        return float(cpu["used_cpu_user"]), float(cpu["used_cpu_sys"])

    def cpu_seconds(self) -> float:
        return sum(self.cpu_times())

    def flush(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as connection:
            connection.sendall(b"FLUSHALL\r\n")
            connection.recv(16)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        shutil.rmtree(self.directory, ignore_errors=True)


@dataclass
class Server:
    """`ludotheque serve` on free ports; `pids`: the processes that serve (with
    several workers: the workers and their supervisor)."""

    process: subprocess.Popen[str]
    grpc_port: int
    http_port: int
    pids: list[int]

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @staticmethod
    def start(store: str, workers: int = 1, env: dict[str, str] | None = None) -> Server:
        environment = {
            **os.environ,
            "LUDOTHEQUE_STORE": store,
            "LUDOTHEQUE_WORKERS": str(workers),
            "LUDOTHEQUE_HOST": "127.0.0.1",
            "LUDOTHEQUE_GRPC_PORT": "0",
            "LUDOTHEQUE_HTTP_PORT": "0",
            "LUDOTHEQUE_SECRET": "benchmark-secret-0123456789-0123456789abcdef",
            "LUDOTHEQUE_LOG_LEVEL": "warning",
            "LUDOTHEQUE_SHUTDOWN_GRACE": "2",
            # Thousands of games from one address: the benchmark measures moves, not the
            # creation limits (each is one store round trip at creation).
            "LUDOTHEQUE_CREATE_RATE": "0",
            "LUDOTHEQUE_LIVE_GAMES": "0",
            # Every seat's session comes from 127.0.0.1 too: past 32 they would be refused.
            "LUDOTHEQUE_MAX_FOLLOWERS_PER_CLIENT": "0",
            **(env or {}),
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "service", "serve"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise SystemExit(f"the server did not start (exit status {process.wait()})")
        ready = json.loads(line)
        pids = [process.pid, *children(process.pid)] if workers > 1 else [process.pid]
        return Server(process, ready["grpc_port"], ready["http_port"], pids)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
