"""A bounded first-in first-out queue with one reader: what a connected seat's session
and presence watch hand their messages through.

asyncio.Queue does the same, but an idle one holds four deques (its items, its getters,
its putters and its `join` event's waiters: 3 KiB), and a connected seat had two of them
and an asyncio.Event (1 KiB). A mailbox holds a list and, only while someone waits, a
future: about 0.2 KiB idle. It has the part of asyncio.Queue's interface that one reader
and any number of writers need, with the same meaning and the same exceptions."""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


class Mailbox(Generic[T]):
    __slots__ = ("_items", "_reader", "_size", "_writers")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a mailbox holds at least one item")
        self._items: list[T] = []
        self._size = size
        self._reader: asyncio.Future[None] | None = None  # while its reader waits for an item
        self._writers: list[asyncio.Future[None]] = []  # writers waiting for room, in order

    def empty(self) -> bool:
        return not self._items

    def full(self) -> bool:
        return len(self._items) >= self._size

    def put_nowait(self, item: T) -> None:
        if self.full():
            raise asyncio.QueueFull
        self._items.append(item)
        reader = self._reader
        if reader is not None and not reader.done():
            reader.set_result(None)

    async def put(self, item: T) -> None:
        """Puts `item` in, once there is room (writers get room in the order they came)."""
        while self.full():
            waiter = asyncio.get_running_loop().create_future()
            self._writers.append(waiter)
            try:
                await waiter
            except BaseException:
                if waiter in self._writers:
                    self._writers.remove(waiter)
                elif not self.full():
                    self._wake_writer()  # it was given the room, but is cancelled: the next one takes it
                raise
        self.put_nowait(item)

    def get_nowait(self) -> T:
        if not self._items:
            raise asyncio.QueueEmpty
        item = self._items.pop(0)  # a short list: cheaper than the deque an idle box would hold
        if self._writers:
            self._wake_writer()
        return item

    async def get(self) -> T:
        """The first item, once there is one."""
        while not self._items:
            if self._reader is not None:
                raise RuntimeError("a mailbox has one reader")
            waiter = self._reader = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._reader = None
        return self.get_nowait()

    def _wake_writer(self) -> None:
        while self._writers:
            writer = self._writers.pop(0)
            if not writer.done():
                writer.set_result(None)
                return
