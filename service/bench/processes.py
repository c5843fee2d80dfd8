"""Processes of the benchmark's own (the load, the crowd), each a Python of its own
(spawned: a fork would carry the parent's event loop and threads) that obeys the orders
its parent sends over a pipe, kept for the whole run: a new Python process costs about a
second. And the small helpers that share work out among them."""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess


class Processes:
    def __init__(self, main: Callable[[Connection], None], count: int) -> None:
        """`count` processes, each running `main` with its end of a pipe."""
        context = multiprocessing.get_context("spawn")
        self.connections: list[Connection] = []
        self.processes: list[BaseProcess] = []
        for _ in range(count):
            parent, child = context.Pipe()
            process = context.Process(target=main, args=(child,), daemon=True)
            process.start()
            self.connections.append(parent)
            self.processes.append(process)

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes if process.pid is not None]

    def close(self) -> None:
        """Tells each process to end (None), and ends those that do not."""
        for connection in self.connections:
            with contextlib.suppress(OSError):  # a process that died has closed its end
                connection.send(None)
        for process in self.processes:
            process.join(10)
            if process.is_alive():
                process.terminate()


def split(total: int, parts: int) -> list[int]:
    """`total` shared out in `parts` as evenly as can be."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def sleep_until(moment: float) -> None:
    """Sleeps until the wall clock says `moment` (time.time())."""
    while (left := moment - time.time()) > 0:
        time.sleep(left)
