"""The next item of a stream a transport sends (service/api/next_item.py): what is done
while none comes, the read stopped before its iterator is closed, and a cancellation of
the caller kept, never swallowed, while the read winds down."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from service.api.next_item import next_item
from tests.support.aio import async_test


async def _false() -> bool:
    return False


class _Slow:
    """A stream that sends nothing, and whose read, once cancelled, takes until
    `release` to stop."""

    def __init__(self) -> None:
        self.winding = asyncio.Event()
        self.release = asyncio.Event()
        self.stopped = asyncio.Event()

    async def items(self) -> AsyncIterator[int]:
        try:
            await asyncio.Event().wait()  # nothing ever comes
            yield 1
        finally:
            self.winding.set()
            await self.release.wait()
            self.stopped.set()


@async_test
async def test_the_item_that_comes_and_none_at_the_end() -> None:
    async def two() -> AsyncIterator[int]:
        yield 1
        yield 2

    items = two()
    assert [await next_item(items, 10, _false) for _ in range(3)] == [1, 2, None]


@async_test
async def test_meanwhile_is_done_while_nothing_comes_and_ends_the_wait_when_it_says_so() -> None:
    slow = _Slow()
    slow.release.set()
    calls = 0

    async def three_times() -> bool:
        nonlocal calls
        calls += 1
        return calls < 3

    items = slow.items()
    assert await next_item(items, 0, three_times) is None
    assert calls == 3 and slow.stopped.is_set()  # the read had stopped: its iterator closes
    await items.aclose()  # type: ignore[attr-defined]


@async_test
async def test_a_caller_cancelled_while_the_read_winds_down_is_cancelled_once_it_has_stopped() -> None:
    slow = _Slow()
    caller = asyncio.create_task(next_item(slow.items(), 0, _false))
    await slow.winding.wait()  # the wait ended (the client went away): the read is stopping
    caller.cancel()
    await asyncio.sleep(0)
    assert not caller.done()  # it waits for the read...
    slow.release.set()
    with pytest.raises(asyncio.CancelledError):
        await caller  # ...then is cancelled, as asked
    assert slow.stopped.is_set()
