"""Waiting for what must come, with a deadline: polling a check until it holds, the test
failing with what it waited for when the deadline passes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def eventually(check: Callable[[], T | None], timeout: float, what: str, interval: float = 0.05) -> T:
    """What `check` returns once it returns something (polled every `interval`
    seconds); fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while (found := check()) is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)
    return found


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Polls `condition` until it holds; fails the test after `timeout` seconds."""
    eventually(lambda: True if condition() else None, timeout, what, interval=0.01)
