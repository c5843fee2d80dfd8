"""The next item of a stream a transport sends, with something done while none comes
(an SSE keep-alive, a Connect check that the client is still there).

The read runs as a future of its own so that it can be waited on with a timeout. When
the wait ends without an item, the read is cancelled and waited for until it has
stopped: its iterator can be closed only then ("generator already running" otherwise).
Only the read's own cancellation ends there: the caller's, if it comes meanwhile, is
raised once the read has stopped, not swallowed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def next_item(items: AsyncIterator[T], every: float, meanwhile: Callable[[], Awaitable[bool]]) -> T | None:
    """The next of `items` (None at their end). While none comes, `meanwhile` is awaited
    every `every` seconds; when it answers False, the wait ends: None."""
    read = asyncio.ensure_future(anext(items))
    try:
        while True:
            done, _ = await asyncio.wait({read}, timeout=every)
            if done:
                return read.result()
            if not await meanwhile():
                return None
    except StopAsyncIteration:
        return None
    finally:
        if not read.done():
            await _stop(read)


async def _stop(read: asyncio.Future[T]) -> None:
    read.cancel()
    interrupted: asyncio.CancelledError | None = None
    while not read.done():
        try:
            await asyncio.wait({read})
        except asyncio.CancelledError as error:  # the caller's: kept for after
            interrupted = error
    if not read.cancelled():
        read.exception()  # it ended otherwise as it was cancelled (an item, the end): nothing to report
    if interrupted is not None:
        raise interrupted
