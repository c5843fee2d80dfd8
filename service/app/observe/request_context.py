"""What the current request is about (its id, game, kind, seat, command id, outcome), in
a context variable: set by the transport at the edge, completed along the move path, and
read by every log line written while the request runs.

One mutable record per request, shared by reference: what the use case learns deep down
(the game's kind, the seat a token stands for) is visible to the edge's access log when
the call ends, and to any task the request starts (asyncio copies the context, not the
record). `scope()` gives a part of a request (one command of a Play session) a record
of its own that starts as a copy of the request's."""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from typing import Any

# An incoming x-request-id is kept when it looks like an id (a proxy's, a client's);
# anything else (too long, spaces, quotes: a log injection) is replaced by a new one.
REQUEST_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
REQUEST_ID_HEADER = "x-request-id"


@dataclass(slots=True)
class RequestFields:
    """The request's facts, as far as they are known. Empty fields are not logged."""

    request_id: str = ""
    transport: str = ""  # grpc, http, connect, sse, websocket...
    method: str = ""  # the RPC, or the HTTP route
    trace_id: str = ""  # the W3C trace id (32 hex digits), when the request has one
    game_id: str = ""
    kind: str = ""
    seat: int | None = None
    command_id: str = ""
    outcome: str = ""  # a command's: accepted, replayed, illegal... (ludotheque_commands_total's)

    def as_log_fields(self) -> dict[str, Any]:
        return {name: value for name in _FIELD_NAMES if (value := getattr(self, name)) not in ("", None)}


_FIELD_NAMES = tuple(f.name for f in fields(RequestFields))


_current: ContextVar[RequestFields | None] = ContextVar("ludotheque_request", default=None)


def new_request_id() -> str:
    return secrets.token_hex(8)


def request_id_from(incoming: str | None) -> str:
    """The caller's x-request-id when it is a sensible id, else a new one."""
    if incoming and REQUEST_ID_PATTERN.match(incoming):
        return incoming
    return new_request_id()


def current() -> RequestFields | None:
    return _current.get()


@contextmanager
def begin(fields: RequestFields) -> Iterator[RequestFields]:
    """Makes `fields` the current request's for the body (a transport's edge)."""
    token = _current.set(fields)
    try:
        yield fields
    finally:
        # A streaming RPC's generator abandoned by its server is closed later by the
        # event loop, in a context of its own: there is nothing of ours to undo there.
        with contextlib.suppress(ValueError):
            _current.reset(token)


@contextmanager
def scope(**known: Any) -> Iterator[RequestFields]:
    """A part of the current request with a record of its own (a copy, then `known`),
    so that what it learns does not overwrite its siblings'."""
    parent = _current.get()
    if parent is None:
        record = RequestFields(**known)
    else:  # a copy made field by field: dataclasses.replace looks the fields up on every call
        record = RequestFields(*[getattr(parent, name) for name in _FIELD_NAMES])
        for name, value in known.items():
            setattr(record, name, value)
    with begin(record):
        yield record


def note(**known: Any) -> None:
    """Records facts about the current request (nothing outside a request)."""
    record = _current.get()
    if record is not None:
        for name, value in known.items():
            setattr(record, name, value)
