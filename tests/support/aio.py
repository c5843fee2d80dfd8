"""Running coroutine tests without a pytest plugin: decorate `async def` tests."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec

P = ParamSpec("P")


def async_test(test: Callable[P, Coroutine[Any, Any, None]]) -> Callable[P, None]:
    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        asyncio.run(test(*args, **kwargs))

    return run
