"""A fast `dataclasses.replace` for the engines' immutable states.

`dataclasses.replace` looks the class's fields up on every call and goes through the
frozen `__init__`, which sets each field through `object.__setattr__`; profiled, it
took a third of the time of `evolve` and `decide`, which replay and every move pay.
`replacer(cls)` writes, once per class, a function that copies every field of a
frozen, slotted dataclass but those given. It does what `replace` does for our states
(none has `__post_init__` or init-only fields)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from google.protobuf.message import Message

T = TypeVar("T")


class _Keep:
    """The default of every argument: keep the field's value."""

    __slots__ = ()


KEEP: Any = _Keep()


def replacer(cls: type[T]) -> Callable[..., T]:
    """`replace(state, **changes)` for instances of `cls`, a frozen dataclass with slots
    and no base class.

    A copy is made as an instance of a draft class with the same slots, whose fields
    take plain attribute stores (the frozen class refuses them, and `object.__setattr__`
    costs a call per field: three times as much in all), then made an instance of `cls`
    once every field is set: assigning `__class__` is allowed between classes of the
    same layout, and the copy is never seen as a draft."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} must be a dataclass without __post_init__")
    names = [field.name for field in dataclasses.fields(cls)]
    if any(not field.init for field in dataclasses.fields(cls)):
        raise TypeError(f"{cls.__name__} has fields outside __init__")
    if cls.__bases__ != (object,) or "__slots__" not in vars(cls) or cls.__dictoffset__:
        raise TypeError(f"{cls.__name__} must be a dataclass with slots and no base class")
    draft = type(f"Draft{cls.__name__}", (), {"__slots__": vars(cls)["__slots__"]})
    parameters = ", ".join(f"{name}=KEEP" for name in names)
    lines = [f"def replace(state, *, {parameters}):", "    new = new_instance(draft)"]
    lines += [f"    new.{name} = state.{name} if {name} is KEEP else {name}" for name in names]
    lines += ["    new.__class__ = cls", "    return new"]
    namespace: dict[str, Any] = {"KEEP": KEEP, "cls": cls, "draft": draft, "new_instance": object.__new__}
    exec("\n".join(lines), namespace)
    function: Callable[..., T] = namespace["replace"]
    function.__doc__ = f"dataclasses.replace for {cls.__name__}, without its per-call introspection."
    return function


def put(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """`items` with `value` at `index` (a new tuple: the old one may be shared)."""
    changed = list(items)  # cheaper than joining slices, however short the tuple
    changed[index] = value
    return tuple(changed)


M = TypeVar("M", bound=Message)


def own_copy(message: M) -> M:
    """A copy of `message` that shares nothing with what it was parsed in: a state keeps
    it, and a part of a parsed message keeps all of that message alive (a replay parses
    a game's events at once)."""
    copy = type(message)()
    copy.CopyFrom(message)
    return copy
