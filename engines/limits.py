"""Games the server stops at their event limit: what every engine does alike.

Nothing in a game's rules needs to bound its length, yet a game of bots, or of players
who never finish, could grow without end. The server bounds each game's events (per
kind) and, when a game reaches its limit unfinished, asks its engine for the event
that stops it (`Engine.stop`: the game's own GameStopped message, so that a replay
ends exactly where the game ended). The stopped game keeps the state it stood in, as
an instance of a subclass of the game's state class that also says `event_limit`
(`stopped_class`): still a state of the game for every reader, over, and won by nobody."""

from __future__ import annotations

import dataclasses
from typing import Any, NoReturn, TypeVar

from engines.contract import RuleViolation, Status
from engines.phrases import NumberArg, Phrase, phrase

T = TypeVar("T")


class Stopped:
    """What every stopped state is besides a state of its game (see `stopped_class`)."""

    __slots__ = ()
    event_limit: int  # the event limit the game reached


_CLASSES: dict[type, type] = {}


def stopped_class(state_class: type[T], module: str = "") -> type[T]:
    """The class of `state_class`'s stopped states: a frozen, slotted dataclass
    subclass of it and of Stopped, with one more field, `event_limit`. One per state
    class, named `Stopped<Name>`; `module`: where the first caller binds that name
    (so that pickle finds it), by default the state class's module."""
    known = _CLASSES.get(state_class)
    if known is None:
        name = f"Stopped{state_class.__name__}"
        known = dataclasses.make_dataclass(
            name, [("event_limit", int, 0)], bases=(state_class, Stopped), frozen=True, slots=True
        )
        known.__module__ = module or state_class.__module__
        known.__doc__ = f"A {state_class.__name__} stopped at its event limit (engines/limits.py)."
        _CLASSES[state_class] = known
    return known


def stop(state: T, event_limit: int) -> T:
    """`state`, stopped at `event_limit`."""
    values: dict[str, Any] = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}  # type: ignore[arg-type]
    make: Any = stopped_class(type(state))
    stopped: T = make(**values, event_limit=event_limit)
    return stopped


def game_stopped(state: T, stopped: Any) -> T:
    """Every game's rule for its GameStopped event (a game's own message, whose
    `event_limit` says the limit it reached): the game stops where it stands."""
    return stop(state, stopped.event_limit)


def summary(event_limit: int) -> str:
    return f"The game was stopped after {event_limit} events, the most a game may have here: nobody wins."


def status(stopped: Stopped, scores: tuple[int, ...] = ()) -> Status:
    """A stopped game is over, without winners; `scores`: as they stood."""
    return Status(finished=True, scores=scores, summary=summary(stopped.event_limit))


def stopped_phrase(kind: str, event_limit: int) -> Phrase:
    """The words of a game's GameStopped event (engines/<kind>/describe.py): the same
    in every game, under each kind's key."""
    return phrase(f"{kind}.event.game_stopped", count=NumberArg(event_limit))


def refuse(stopped: Stopped) -> NoReturn:
    raise RuleViolation("game_over", f"The game is over: it was stopped after {stopped.event_limit} events.")
