"""`ludotheque serve --workers N`: N server processes on one pair of ports.

Python runs one thread of Python at a time, so one process serves at most one core.
Here the parent process starts N worker processes that all listen on the same gRPC
and HTTP ports with SO_REUSEPORT (the kernel spreads new connections between them),
sharing one Redis store. The parent:

- chooses the ports once when asked for port 0, and holds them (a bound socket that
  does not listen) until every worker listens, so all workers share the same ports;
- gives every worker the same token secret (a random one when none is configured),
  so a seat token from one worker is valid on all;
- prints one ready line once all workers are ready;
- forwards SIGTERM and SIGINT to the workers and waits for them to drain;
- restarts a worker that dies, unless workers keep dying at once (then it stops).

A worker is `python -m service.cli.workers`, configured through the environment."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from types import FrameType

from service.cli import config as configuration
from service.cli.config import Config
from service.settings import environment as settings_environment

log = logging.getLogger("ludotheque.workers")

PARENT_PID_ENV = "LUDOTHEQUE_SUPERVISOR_PID"
# A worker that dies this soon after starting counts as failing to start; after
# MAX_QUICK_FAILURES of those in a row the parent gives up (a port taken, Redis
# misconfigured...) rather than restart it forever.
QUICK_FAILURE_SECONDS = 5.0
MAX_QUICK_FAILURES = 5
RESTART_DELAY = 1.0
PR_SET_PDEATHSIG = 1


def check(config: Config) -> None:
    """Refuses what several workers cannot do."""
    workers = config.server.workers
    if workers < 1:
        raise SystemExit(f"--workers must be at least 1, not {workers}")
    if workers > 1 and config.store.url == "memory":
        raise SystemExit(
            "--workers > 1 needs a shared store: each worker's memory store would hold only its own games. "
            "Use --store redis://host:port/db (or run one worker)."
        )


def _reserve_port(host: str, port: int) -> tuple[int, socket.socket | None]:
    """The port to share; for port 0 a free one, held by a bound, non-listening
    socket (SO_REUSEPORT, so the workers may bind it too) until they listen."""
    if port != 0:
        return port, None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    holder = socket.socket(family, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    holder.bind((host, 0))
    return int(holder.getsockname()[1]), holder


def worker_environment(config: Config) -> dict[str, str]:
    """The environment that gives a worker this configuration, as one process."""
    return {**os.environ, **settings_environment(config), PARENT_PID_ENV: str(os.getpid())}


class Supervisor:
    def __init__(self, config: Config, announce: Callable[[str], None]) -> None:
        self.config = config
        self.announce = announce
        self.workers: list[subprocess.Popen[str]] = []
        self.started_at: list[float] = []
        self.stopping = False

    def run(self) -> int:
        config = self.config
        grpc_port, grpc_holder = _reserve_port(config.server.host, config.grpc.port)
        http_port, http_holder = _reserve_port(config.server.host, config.http.port)
        secret = config.access.secret
        if not secret:
            log.warning(
                "LUDOTHEQUE_SECRET is not set: the workers share a random secret; "
                "seat tokens stop working when the server stops"
            )
            secret = secrets.token_urlsafe(32)
        self.environment = worker_environment(
            replace(
                config,
                server=replace(config.server, workers=1),
                grpc=replace(config.grpc, port=grpc_port),
                http=replace(config.http, port=http_port),
                access=replace(config.access, secret=secret),
            )
        )
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._forward)
        try:
            for _ in range(config.server.workers):
                self.workers.append(self._spawn(ready_line=True))
                self.started_at.append(time.monotonic())
            for worker in self.workers:
                if not self._wait_ready(worker):
                    self._stop_all(signal.SIGTERM)
                    self._reap_all()
                    return 1
        finally:
            for holder in (grpc_holder, http_holder):
                if holder is not None:
                    holder.close()
        log.info("%d workers serving gRPC on port %d and HTTP on port %d", len(self.workers), grpc_port, http_port)
        self.announce(
            json.dumps({"grpc_port": grpc_port, "http_port": http_port, "pids": [w.pid for w in self.workers]})
        )
        return self._supervise()

    def _spawn(self, *, ready_line: bool) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "service.cli.workers"],
            env=self.environment,
            stdout=subprocess.PIPE if ready_line else subprocess.DEVNULL,
            text=True,
        )

    def _wait_ready(self, worker: subprocess.Popen[str]) -> bool:
        assert worker.stdout is not None
        line = worker.stdout.readline()  # a worker prints its line once it listens
        worker.stdout.close()
        if not line:
            log.error("a worker did not start (exit status %s)", worker.wait())
            return False
        return True

    def _forward(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True
        self._stop_all(signum)

    def _stop_all(self, signum: int) -> None:
        for worker in self.workers:
            if worker.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    worker.send_signal(signum)

    def _reap_all(self) -> None:
        for worker in self.workers:
            worker.wait()

    def _supervise(self) -> int:
        """Waits for the workers; restarts one that dies unless we are stopping."""
        quick_failures = 0
        status = 0
        while any(worker.returncode is None for worker in self.workers):
            try:
                pid, wait_status = os.wait()
            except ChildProcessError:
                break
            index = next((i for i, w in enumerate(self.workers) if w.pid == pid), None)
            if index is None:
                continue
            worker = self.workers[index]
            worker.returncode = os.waitstatus_to_exitcode(wait_status)
            if self.stopping:
                status = status or (worker.returncode if worker.returncode > 0 else 0)
                continue
            lived = time.monotonic() - self.started_at[index]
            quick_failures = quick_failures + 1 if lived < QUICK_FAILURE_SECONDS else 0
            log.error("worker %d (pid %d) exited with status %d", index, pid, worker.returncode)
            if quick_failures >= MAX_QUICK_FAILURES:
                log.error("workers keep dying at start: stopping")
                self.stopping = True
                self._stop_all(signal.SIGTERM)
                status = 1
                continue
            time.sleep(RESTART_DELAY)
            if not self.stopping:
                self.workers[index] = self._spawn(ready_line=False)
                self.started_at[index] = time.monotonic()
                log.info("worker %d restarted (pid %d)", index, self.workers[index].pid)
        return status


def supervise(config: Config, announce: Callable[[str], None] | None = None) -> int:
    """Runs `config.server.workers` workers until SIGTERM or SIGINT; the exit status."""
    check(config)
    return Supervisor(config, announce or _print_line).run()


def _print_line(line: str) -> None:
    print(line, flush=True)


def _die_with_parent(parent_pid: int) -> None:
    """A worker must not outlive its supervisor (killed with SIGKILL, it cannot
    forward anything): Linux sends this process SIGTERM when the parent dies."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent_pid:  # the parent died before prctl
        raise SystemExit(1)


def worker_main() -> int:
    from service.cli.serve import configure_logging, serve

    parent = os.environ.get(PARENT_PID_ENV)
    if parent is not None:
        _die_with_parent(int(parent))
    config = configuration.from_arguments(argparse.Namespace())
    configure_logging(config)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(config, reuse_port=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(worker_main())
