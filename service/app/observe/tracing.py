"""The use cases' spans, through the OpenTelemetry API: a move and its decide and append
steps, and the fan-out of its events to the followers in this process.

Tracing is off unless the server configured the SDK (service/cli/telemetry.py calls
`enable()`); until then every helper here returns at once, so a move pays nothing for it.
A follower's delivery of an event runs in the follower's own task, long after the move
returned: the move leaves its span's context on the live game (`this_move`), and
the delivery span names it as its parent, so the mover's trace shows who got the move."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, TypeVar

from opentelemetry import trace
from opentelemetry.trace import Span, SpanContext, SpanKind, Status, StatusCode, format_trace_id

from service.app.observe import request_context

T = TypeVar("T")
_tracer = trace.get_tracer("ludotheque")
_enabled = False

# A move traced in this process: its first and last versions and its span's context.
TracedMove = tuple[int, int, SpanContext]


def enable() -> None:
    """Called once the SDK is configured: spans are worth making from now on."""
    global _enabled
    _enabled = True


def enabled() -> bool:
    return _enabled


def span(name: str, **attributes: Any) -> AbstractContextManager[Span]:
    """A child span of the current one, current in the body; a span that records
    nothing when tracing is off or the request is not sampled (every standard sampler
    decides a child as its parent: by the parent, or by the same trace id)."""
    if not _enabled or not trace.get_current_span().is_recording():
        return _NO_SPAN  # every move takes two: a generator-based context costs more
    return _tracer.start_as_current_span(f"ludotheque.{name}", attributes=_attributes(attributes))


_NO_SPAN = nullcontext(trace.INVALID_SPAN)  # reusable: it holds nothing but the span it yields


def annotate(**attributes: Any) -> None:
    """Sets attributes on the current span (nothing when it records nothing)."""
    annotate_span(trace.get_current_span(), **attributes)


def annotate_span(made: Span, **attributes: Any) -> None:
    """Sets attributes on `made`, a span of ours that may not be the current one."""
    if _enabled and made.is_recording():
        made.set_attributes(_attributes(attributes))


def move_span(apply: Callable[[Any, Any, str], Awaitable[T]]) -> Callable[[Any, Any, str], Awaitable[T]]:
    """Makes `apply(self, request, token)`, which plays a command, the span of a move:
    the decide and append steps inside it are its children, and it ends with what the
    request context learnt (kind, seat, outcome) and an error status when refused."""

    @functools.wraps(apply)
    async def traced(moves: Any, request: Any, token: str) -> T:
        if not _enabled or not trace.get_current_span().is_recording():
            return await apply(moves, request, token)
        attributes = _attributes({"game_id": request.game_id, "command_id": request.command_id or None})
        with _tracer.start_as_current_span("ludotheque.move", attributes=attributes) as made:
            try:
                return await apply(moves, request, token)
            except Exception as error:
                made.set_status(Status(StatusCode.ERROR, str(error)))
                raise
            finally:
                record = request_context.current()
                if record is not None:
                    learnt = {"kind": record.kind or None, "seat": record.seat, "outcome": record.outcome or None}
                    made.set_attributes(_attributes(learnt))

    return traced


def current_trace_id() -> str:
    """The current span's trace id in hex (what a trace viewer looks up); "" without one."""
    context = trace.get_current_span().get_span_context()
    return format_trace_id(context.trace_id) if context.is_valid else ""


def this_move(first_version: int, last_version: int) -> TracedMove | None:
    """What a follower needs to make its delivery of these versions a child of the
    current span (the move's), when it is traced."""
    if not _enabled:
        return None
    current = trace.get_current_span()
    if not current.is_recording():
        return None
    return first_version, last_version, current.get_span_context()


def delivery(move: TracedMove | None, version: int, **attributes: Any) -> AbstractContextManager[None]:
    """A span for handing the event at `version` to one follower, child of the move
    that made it when that move was traced here. Not made current: the body may yield
    to a consumer running in another task."""
    if not _enabled or move is None or not move[0] <= version <= move[1]:
        return _NO_DELIVERY  # every event, to every follower: a generator-based context costs more
    return _delivery(move, version, attributes)


_NO_DELIVERY = nullcontext()


@contextmanager
def _delivery(move: TracedMove, version: int, attributes: dict[str, Any]) -> Iterator[None]:
    parent = trace.set_span_in_context(trace.NonRecordingSpan(move[2]))
    links = []
    follower = trace.get_current_span().get_span_context()
    if follower.is_valid:
        links.append(trace.Link(follower))  # the follower's own request
    record = request_context.current()
    if record is not None:
        attributes["ludotheque.follower.request_id"] = record.request_id
    made = _tracer.start_span(
        "ludotheque.fan_out",
        context=parent,
        kind=SpanKind.PRODUCER,
        links=links,
        attributes=_attributes({"version": version, **attributes}),
    )
    try:
        yield
    finally:
        made.end()


def _attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """Our attributes under the `ludotheque.` namespace, None left out."""
    return {
        (key if key.startswith("ludotheque.") else f"ludotheque.{key}"): value
        for key, value in attributes.items()
        if value is not None
    }
