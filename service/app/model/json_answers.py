"""Answers written as JSON (REST's and Connect's), a large one in a heavy worker: turning a
long export or ListEvents page into JSON costs a quarter of a second of CPU per megabyte,
which on the event loop would hold up every move and miss the store's deadlines.

An answer whose protobuf encoding is at least `HeavySettings.json_bytes` long is handed to
a worker of the heavy pool (heavy_reads.py) as its bytes and its type's full name; the
worker parses it and writes it as JSON exactly as the loop does (`as_json`: the same
options, the same bytes). The work is a heavy read of the caller's (`<RPC> as JSON` in the
metrics), refused past its budget like the others: a caller within `per_client` calls at
once is never refused there, since the job that made its answer is over before the answer
is written.

A map's keys come out sorted: protobuf keeps a map's entries in a hash table seeded per
process, so its order would differ between the loop and a worker (and between two servers).

An answer that never changes (a finished game's export, logs/exports.py) may come with a
place to keep its JSON (`Keeping`): the transport then writes it once per style, and
serves the kept bytes again."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, Literal, Protocol, cast

from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

# The service's messages, in this process's descriptor pool (a worker is a fresh interpreter).
from ludotheque.v1 import diagnostics_pb2, game_service_pb2  # noqa: F401

from service.app.model.heavy_reads import HeavyReads

Style = Literal["rest", "connect"]  # REST: every field, present or not; Connect: the compact mapping
STYLES: tuple[Style, ...] = ("rest", "connect")


class Keeping(Protocol):
    """Where an answer that never changes keeps its JSON, by style."""

    def get(self, style: Style) -> bytes | None: ...

    def put(self, style: Style, data: bytes) -> None: ...


class AnswerSlot:
    """Set by the transport around a use case; a use case whose answer never changes puts
    its Keeping there."""

    keeping: Keeping | None = None


_slot: ContextVar[AnswerSlot | None] = ContextVar("ludotheque_json_keeping", default=None)


def keep_json_in(keeping: Keeping) -> None:
    """Said by a use case: the answer it returns never changes, its JSON is kept there
    (nothing when the call is not answered in JSON)."""
    slot = _slot.get()
    if slot is not None:
        slot.keeping = keeping


@contextlib.contextmanager
def answering() -> Iterator[AnswerSlot]:
    """Around a use case answered in JSON: what it says of its answer's keeping."""
    slot = AnswerSlot()
    reset = _slot.set(slot)
    try:
        yield slot
    finally:
        _slot.reset(reset)


def as_json(message: Message, style: Style) -> bytes:
    """`message` as the transport writes it: REST prints every field (present or not),
    Connect the compact mapping; compact separators, UTF-8, map keys sorted."""
    value = json_format.MessageToDict(message, always_print_fields_with_no_presence=style == "rest")
    _sort_maps(cast(Descriptor, message.DESCRIPTOR), value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def json_in_worker(type_name: str, data: bytes, style: Style) -> bytes:
    """A worker's job: the message of type `type_name` encoded as `data`, as JSON."""
    descriptor = descriptor_pool.Default().FindMessageTypeByName(type_name)
    return as_json(message_factory.GetMessageClass(descriptor).FromString(data), style)


@functools.cache
def _visits(descriptor: Descriptor) -> tuple[tuple[str, Descriptor], ...]:
    """The fields of `descriptor` under which a map may be found: their JSON names and types."""
    return tuple(
        (field.json_name, field.message_type)
        for field in descriptor.fields
        if field.message_type is not None and _holds_maps(field.message_type)
    )


def _holds_maps(descriptor: Descriptor | None, seen: frozenset[str] = frozenset()) -> bool:
    if descriptor is None or descriptor.full_name in seen or descriptor.full_name.startswith("google.protobuf."):
        return False  # (the well-known types print as JSON values of their own: none of ours holds a map)
    if descriptor.GetOptions().map_entry:
        return True
    seen = seen | {descriptor.full_name}
    return any(_holds_maps(field.message_type, seen) for field in descriptor.fields)


def _sort_maps(descriptor: Descriptor, value: Any) -> None:
    """Sorts, in place, the keys of every map in `value` (`descriptor`'s message as a dict)."""
    for name, entry in _visits(descriptor):
        found = value.get(name)
        if not found:
            continue
        if entry.GetOptions().map_entry:
            inner = entry.fields_by_name["value"].message_type
            for key in sorted(found):
                item = found.pop(key)
                found[key] = item  # (re-inserted in order: a dict keeps insertion order)
                if inner is not None and isinstance(item, dict):
                    _sort_maps(inner, item)
        elif isinstance(found, list):
            for item in found:
                _sort_maps(entry, item)
        else:
            _sort_maps(entry, found)


class JsonAnswers:
    """Writes a transport's answers as JSON: a small one inline, a large one in a heavy worker."""

    def __init__(self, heavy: HeavyReads) -> None:
        self._heavy = heavy

    async def encode(
        self, method: str, message: Message, style: Style, token: str, slot: AnswerSlot | None = None
    ) -> bytes:
        """`message`, the answer of `method` to the caller of `token`, as JSON; kept in (or
        taken from) the Keeping its use case put in `slot`."""
        keeping = slot.keeping if slot is not None else None
        if keeping is not None:
            kept = keeping.get(style)
            if kept is not None:
                return kept
        if message.ByteSize() < self._heavy.settings.json_bytes:
            written = as_json(message, style)
        else:
            job = (message.DESCRIPTOR.full_name, message.SerializeToString(), style)
            written = await self._heavy.run(f"{method} as JSON", token, json_in_worker, *job)
        if keeping is not None:
            keeping.put(style, written)
        return written
