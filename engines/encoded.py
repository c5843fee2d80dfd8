"""Shared instances of cards and tiles, found by their encoding; a deal's read at once.

An engine keeps one instance per card or tile (a live game holds dozens; equal ones
are interchangeable: immutable, compared by value), found by the message's encoding:
encoding a card costs less than reading its fields and making a tuple, and a replay
reads every card dealt, drawn and played. A deal's cards are read together: the deal's
own encoding parsed as an EncodedFields (proto/ludotheque/v1/encoded.proto) gives the
encodings of all of them in one call into upb, instead of a Python message and an
encoding asked of each (two crossings per card: most of a replay's cost of a deal)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from google.protobuf.message import Message
from ludotheque.v1.encoded_pb2 import EncodedFields

T = TypeVar("T", bound=tuple)  # type: ignore[type-arg]
M = TypeVar("M", bound=Message)

MAX_SHARED = 1024  # instances per table at most: a malformed log must not grow one without end

_parse_parts = EncodedFields.FromString


def parts(message: Message) -> EncodedFields:
    """`message` with each of its message fields' elements kept encoded (field_N: field N's)."""
    return _parse_parts(message.SerializeToString())


def parts_of(encoding: bytes) -> EncodedFields:
    """The message encoded as `encoding`, read as `parts` reads one (e.g. an element of
    another's parts)."""
    return _parse_parts(encoding)


class Shared(Generic[M, T]):
    """The shared instances of the values that messages of one type encode; `make`:
    a value from its message. Values are non-empty tuples (named tuples), so true.
    A fold's loop may inline `of`: `known(encode(message)) or of(message)`."""

    __slots__ = ("_known", "_make", "_message_type", "encode", "known")

    def __init__(self, message_type: type[M], make: Callable[[M], T]) -> None:
        self._known: dict[bytes, T] = {}
        self._make = make
        self._message_type = message_type
        self.encode: Callable[[M], bytes] = message_type.SerializeToString  # the class's: no lookup per message
        self.known = self._known.get  # the instance of an encoding, if known

    def of(self, message: M) -> T:
        key = self.encode(message)
        known = self._known.get(key)
        return known if known is not None else self._add(key, message)

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
