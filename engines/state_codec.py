"""A safe, exact encoding of an engine's state, for snapshots.

A state is encoded by the types its class declares (its fields' type hints), as
compact JSON: a dataclass or NamedTuple as the list of its fields, a tuple as a list,
a frozenset as a sorted list, a protobuf message as its bytes in base64, a union of
classes as {"ClassName": fields}. Decoding follows the same declared types and checks
every value against them: it builds only the classes the state's type names, calls
no other code, and refuses anything else (`CodecError`). So a snapshot read from a
store is never trusted as code, as a pickle would be.

The codec's `name` says the encoding and a digest of the state's shape (every class,
field and type it names): a state class that changes gets another name, and the
snapshots taken before are not read as its states."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import json
import types
import typing
from collections.abc import Callable
from typing import Any

from google.protobuf.message import DecodeError, Message

from engines.limits import stopped_class

VERSION = "json/1"

Encode = Callable[[Any], Any]
Decode = Callable[[Any], Any]


class CodecError(ValueError):
    """A value that is not of the declared type: the state cannot be encoded, or the
    data is not an encoded state."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Codec:
    encode: Encode
    decode: Decode
    shape: str  # the type, spelled out: what the name's digest is of


class StateCodec:
    """Encodes and decodes the states of one state type (e.g. `MookiState | StoppedMookiState`)."""

    def __init__(self, state_type: Any) -> None:
        self._codecs: dict[Any, _Codec] = {}
        self._codec = self._for(state_type)
        digest = hashlib.sha256(self._codec.shape.encode()).hexdigest()[:16]
        self.name = f"{VERSION}/{digest}"

    def encode(self, state: Any) -> bytes:
        return json.dumps(self._codec.encode(state), separators=(",", ":")).encode()

    def decode(self, data: bytes) -> Any:
        try:
            tree = json.loads(data)
        except (ValueError, RecursionError) as error:
            raise CodecError(f"not JSON: {error}") from None
        return self._codec.decode(tree)

    # --- building the codec of a type, once ------------------------------------------

    def _for(self, hint: Any) -> _Codec:
        known = self._codecs.get(hint)
        if known is None:
            # A class that names itself (a tree) would recurse: not in our states.
            known = self._codecs[hint] = self._build(hint)
        return known

    def _build(self, hint: Any) -> _Codec:
        origin = typing.get_origin(hint)
        if hint in (int, bool, str, float):
            return _scalar(hint)
        if hint is type(None):
            return _Codec(_none_only, _none_only, "None")
        if origin in (types.UnionType, typing.Union):
            return self._union(typing.get_args(hint))
        if origin is tuple:
            return self._tuple(typing.get_args(hint))
        if origin is frozenset:
            return self._frozenset(typing.get_args(hint)[0])
        if isinstance(hint, type) and issubclass(hint, Message):
            return _message(hint)
        if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or _is_named_tuple(hint)):
            return self._record(hint)
        raise CodecError(f"cannot encode values of type {hint!r}")

    def _tuple(self, args: tuple[Any, ...]) -> _Codec:
        if len(args) == 2 and args[1] is Ellipsis:
            item = self._for(args[0])

            def encode(value: Any) -> Any:
                if type(value) is not tuple:
                    raise CodecError(f"expected a tuple, not {type(value).__name__}")
                return [item.encode(v) for v in value]

            def decode(tree: Any) -> Any:
                if type(tree) is not list:
                    raise CodecError("expected a list")
                return tuple(item.decode(v) for v in tree)

            return _Codec(encode, decode, f"tuple[{item.shape},...]")
        items = [self._for(arg) for arg in args]

        def encode_fixed(value: Any) -> Any:
            if type(value) is not tuple or len(value) != len(items):
                raise CodecError(f"expected a tuple of {len(items)}")
            return [c.encode(v) for c, v in zip(items, value, strict=True)]

        def decode_fixed(tree: Any) -> Any:
            if type(tree) is not list or len(tree) != len(items):
                raise CodecError(f"expected a list of {len(items)}")
            return tuple(c.decode(v) for c, v in zip(items, tree, strict=True))

        return _Codec(encode_fixed, decode_fixed, f"tuple[{','.join(c.shape for c in items)}]")

    def _frozenset(self, arg: Any) -> _Codec:
        item = self._for(arg)

        def encode(value: Any) -> Any:
            if type(value) is not frozenset:
                raise CodecError(f"expected a frozenset, not {type(value).__name__}")
            encoded = [item.encode(v) for v in value]
            return sorted(encoded, key=lambda v: json.dumps(v, separators=(",", ":")))  # one encoding per set

        def decode(tree: Any) -> Any:
            if type(tree) is not list:
                raise CodecError("expected a list")
            return frozenset(item.decode(v) for v in tree)

        return _Codec(encode, decode, f"frozenset[{item.shape}]")

    def _record(self, cls: type) -> _Codec:
        """A dataclass or NamedTuple: its fields in order, by their declared types."""
        hints = typing.get_type_hints(cls)
        names = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else list(cls._fields)  # type: ignore[attr-defined]
        self._codecs[cls] = _Codec(_unbuilt, _unbuilt, cls.__qualname__)  # a placeholder while its fields build
        fields = [(name, self._for(hints[name])) for name in names]

        def encode(value: Any) -> Any:
            if type(value) is not cls:
                raise CodecError(f"expected a {cls.__name__}, not {type(value).__name__}")
            return [codec.encode(getattr(value, name)) for name, codec in fields]

        def decode(tree: Any) -> Any:
            if type(tree) is not list or len(tree) != len(fields):
                raise CodecError(f"expected the {len(fields)} fields of a {cls.__name__}")
            return cls(*(codec.decode(v) for (_, codec), v in zip(fields, tree, strict=True)))

        shape = f"{cls.__module__}.{cls.__qualname__}({','.join(f'{n}:{c.shape}' for n, c in fields)})"
        return _Codec(encode, decode, shape)

    def _union(self, members: tuple[Any, ...]) -> _Codec:
        others = [m for m in members if m is not type(None)]
        optional = len(others) < len(members)
        if len(others) == 1:
            inner = self._for(others[0])
            if not optional:
                return inner
            return _Codec(
                lambda value: None if value is None else inner.encode(value),
                lambda tree: None if tree is None else inner.decode(tree),
                f"{inner.shape}|None",
            )
        # Several classes: each value says which (classes only: their names tell them apart).
        if not all(isinstance(m, type) for m in others):
            raise CodecError(f"cannot encode a union of {others!r}")
        by_class = {m: self._for(m) for m in others}
        by_name = {m.__qualname__: (m, codec) for m, codec in by_class.items()}
        if len(by_name) != len(by_class):
            raise CodecError(f"two classes of one name in {others!r}")

        def encode(value: Any) -> Any:
            if value is None and optional:
                return None
            codec = by_class.get(type(value))
            if codec is None:
                raise CodecError(f"{type(value).__name__} is none of {', '.join(by_name)}")
            return {type(value).__qualname__: codec.encode(value)}

        def decode(tree: Any) -> Any:
            if tree is None and optional:
                return None
            if type(tree) is not dict or len(tree) != 1:
                raise CodecError("expected one of a union's classes")
            ((name, fields),) = tree.items()
            if name not in by_name:
                raise CodecError(f"{name!r} is none of {', '.join(by_name)}")
            return by_name[name][1].decode(fields)

        shape = "|".join(by_name[n][1].shape for n in sorted(by_name)) + ("|None" if optional else "")
        return _Codec(encode, decode, shape)


def _scalar(kind: type) -> _Codec:
    def check(value: Any) -> Any:
        # Exactly the type: a bool is an int to isinstance, not to a state's int field.
        if type(value) is not kind and not (kind is float and type(value) is int):
            raise CodecError(f"expected {kind.__name__}, not {type(value).__name__}")
        return value

    return _Codec(check, check, kind.__name__)


def _message(cls: type[Message]) -> _Codec:
    def encode(value: Any) -> Any:
        if type(value) is not cls:
            raise CodecError(f"expected a {cls.DESCRIPTOR.full_name}")
        return base64.b64encode(value.SerializeToString(deterministic=True)).decode()

    def decode(tree: Any) -> Any:
        if type(tree) is not str:
            raise CodecError(f"expected a {cls.DESCRIPTOR.full_name} in base64")
        try:
            return cls.FromString(base64.b64decode(tree, validate=True))
        except (binascii.Error, DecodeError) as error:
            raise CodecError(f"not a {cls.DESCRIPTOR.full_name}: {error}") from None

    return _Codec(encode, decode, cls.DESCRIPTOR.full_name)


def _none_only(value: Any) -> Any:
    if value is not None:
        raise CodecError("expected None")
    return None


def _unbuilt(value: Any) -> Any:
    raise CodecError("a state class that contains itself cannot be encoded")


def _is_named_tuple(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


_ENGINE_CODECS: dict[str, StateCodec] = {}


def for_engine(engine: Any) -> StateCodec:
    """The codec of an engine's states, stopped ones included (engines/limits.py)."""
    codec = _ENGINE_CODECS.get(engine.kind)
    if codec is None:
        state_class = type(engine.initial_state())
        codec = _ENGINE_CODECS[engine.kind] = StateCodec(state_class | stopped_class(state_class))
    return codec
