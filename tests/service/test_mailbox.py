"""The mailbox a seat's session and presence watch hand messages through
(service/app/model/mailbox.py): asyncio.Queue's meaning for one reader and many writers,
with nothing held while nobody waits. A hypothesis run plays random puts, gets and
cancellations against asyncio.Queue and checks both give the same items in the same order."""

from __future__ import annotations

import asyncio
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.app.model.mailbox import Mailbox
from tests.support.aio import async_test


@async_test
async def test_items_come_out_in_order_and_a_full_box_makes_writers_wait_their_turn() -> None:
    box: Mailbox[int] = Mailbox(2)
    box.put_nowait(1)
    await box.put(2)
    assert box.full()
    with pytest.raises(asyncio.QueueFull):
        box.put_nowait(3)
    writers = [asyncio.create_task(box.put(item)) for item in (3, 4)]
    await asyncio.sleep(0)
    assert not any(writer.done() for writer in writers)
    assert [await box.get() for _ in range(4)] == [1, 2, 3, 4]
    await asyncio.gather(*writers)
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


@async_test
async def test_a_waiting_reader_is_woken_by_a_put_and_a_second_reader_is_refused() -> None:
    box: Mailbox[str] = Mailbox(1)
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="one reader"):
        await box.get()
    box.put_nowait("hello")
    assert await reader == "hello"


@async_test
async def test_a_cancelled_reader_leaves_the_item_and_a_cancelled_writer_passes_its_room_on() -> None:
    box: Mailbox[int] = Mailbox(1)
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    reader.cancel()
    await asyncio.gather(reader, return_exceptions=True)
    box.put_nowait(1)
    first, second = asyncio.create_task(box.put(2)), asyncio.create_task(box.put(3))
    await asyncio.sleep(0)
    assert box.get_nowait() == 1  # wakes `first`, which is cancelled before it runs
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    await second  # the room went to the next writer
    assert box.get_nowait() == 3
    assert box.empty()


def test_an_idle_mailbox_holds_a_fraction_of_an_idle_queue() -> None:
    box: Mailbox[int] = Mailbox(256)
    queue: asyncio.Queue[int] = asyncio.Queue(256)
    held = sys.getsizeof(box) + sys.getsizeof(box._items) + sys.getsizeof(box._writers)
    queued = sum(sys.getsizeof(part) for part in vars(queue).values())
    queued += sys.getsizeof(queue._finished._waiters)  # type: ignore[attr-defined]
    assert held * 10 < queued, (held, queued)


# Steps: ("put", n) a writer task puts n; ("get",) the reader takes one; ("cancel", i) the
# i-th writer still waiting is cancelled; ("run",) the loop turns.
steps = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(0, 99)),
        st.tuples(st.just("get")),
        st.tuples(st.just("cancel"), st.integers(0, 5)),
        st.tuples(st.just("run")),
    ),
    max_size=40,
)


async def _play(box: Mailbox[int] | asyncio.Queue[int], plan: list[tuple[object, ...]]) -> list[int | None]:
    writers: list[asyncio.Task[None]] = []
    got: list[int | None] = []
    for step in plan:
        if step[0] == "put":
            writers.append(asyncio.create_task(box.put(int(step[1]))))  # type: ignore[call-overload]
        elif step[0] == "get":
            got.append(None if box.empty() else box.get_nowait())
        elif step[0] == "cancel":
            waiting = [writer for writer in writers if not writer.done()]
            if waiting:
                waiting[int(step[1]) % len(waiting)].cancel()  # type: ignore[call-overload]
        await asyncio.sleep(0)
    for writer in writers:
        writer.cancel()
    await asyncio.gather(*writers, return_exceptions=True)
    while not box.empty():
        got.append(box.get_nowait())
    return got


@given(size=st.integers(1, 3), plan=steps)
def test_random_puts_gets_and_cancels_give_what_an_asyncio_queue_gives(
    size: int, plan: list[tuple[object, ...]]
) -> None:
    assert asyncio.run(_play(Mailbox(size), plan)) == asyncio.run(_play(asyncio.Queue(size), plan))
