"""Shared instances of cards and tiles, found by their encoding; a deal's read at once.

An engine keeps one instance per card or tile (a live game holds dozens; equal ones
are interchangeable: immutable, compared by value), found by the message's encoding:
encoding a card costs less than reading its fields and making a tuple, and a replay
reads every card dealt, drawn and played. A deal's cards are read together
(`Shared.of_field`): the deal's own encoding parsed as an EncodedFields
(proto/ludotheque/v1/encoded.proto) gives the encodings of all of them in one call
into upb, instead of a Python message and an encoding asked of each (two crossings
per card: most of a replay's cost of a deal). The field is named as the game's proto
names it: its number, which EncodedFields goes by, is looked up here once."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from ludotheque.v1.encoded_pb2 import EncodedFields

T = TypeVar("T", bound=tuple)  # type: ignore[type-arg]
M = TypeVar("M", bound=Message)

MAX_SHARED = 1024  # instances per table at most: a malformed log must not grow one without end

_parse_parts = EncodedFields.FromString


def encodings(message: Message, field: str) -> Sequence[bytes]:
    """The encodings of the elements of `message`'s repeated message field `field`, in
    order, read at once (the message encoded, then parsed as an EncodedFields)."""
    return getattr(_parse_parts(message.SerializeToString()), _part(message.DESCRIPTOR, field))  # type: ignore[no-any-return]


@functools.cache
def _part(descriptor: Descriptor, field: str) -> str:
    """The EncodedFields field that holds the encodings of `field`'s elements."""
    number = descriptor.fields_by_name[field].number
    part = f"field_{number}"
    if part not in EncodedFields.DESCRIPTOR.fields_by_name:
        raise ValueError(f"{descriptor.full_name}.{field} is field {number}: EncodedFields reads fields 1 to 8 only")
    return part


class Shared(Generic[M, T]):
    """The shared instances of the values that messages of one type encode; `make`:
    a value from its message. Values are non-empty tuples (named tuples), so true."""

    __slots__ = ("_encode", "_known", "_make", "_message_type")

    def __init__(self, message_type: type[M], make: Callable[[M], T]) -> None:
        self._known: dict[bytes, T] = {}
        self._make = make
        self._message_type = message_type
        self._encode: Callable[[M], bytes] = message_type.SerializeToString  # the class's: no lookup per message

    def of(self, message: M) -> T:
        key = self._encode(message)
        known = self._known.get(key)
        return known if known is not None else self._add(key, message)

    def of_field(self, message: Message, field: str) -> tuple[T, ...]:
        """The values of the elements of `message`'s repeated field `field` (of this
        table's message type), read at once (`encodings`)."""
        return self.of_encodings(encodings(message, field))

    def of_encodings(self, encodings: Sequence[bytes]) -> tuple[T, ...]:
        """The values of messages given as their encodings (an EncodedFields' field:
        read as a slice, one call into upb; then looked up in C, by map)."""
        keys = encodings[:]
        values = tuple(map(self._known.get, keys))
        if all(values):  # every one known (a value is a non-empty tuple)
            return values  # type: ignore[return-value]
        known, decoded = self._known.get, self._decoded
        return tuple([known(key) or decoded(key) for key in keys])

    def _decoded(self, key: bytes) -> T:
        return self._add(key, self._message_type.FromString(key))

    def _add(self, key: bytes, message: M) -> T:
        value = self._make(message)
        if len(self._known) < MAX_SHARED:
            self._known[key] = value
        return value
