"""Running coroutine tests without a pytest plugin (decorate `async def` tests), and
reading the first events of a store subscription."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, ParamSpec

from service.store.base import StoredEvent

P = ParamSpec("P")


def async_test(test: Callable[P, Coroutine[Any, Any, None]]) -> Callable[P, None]:
    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def first_versions(events: AsyncIterator[StoredEvent], count: int) -> list[int]:
    """The versions of the first `count` events of a subscription."""
    versions = []
    async for event in events:
        versions.append(event.version)
        if len(versions) == count:
            break
    return versions
