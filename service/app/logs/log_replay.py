"""The stateless use case of a log sent in a request (ReplayLog): verify it, replay it,
and show a range of its versions as one viewer saw them (each with the event that made
it, described in the caller's language), storing nothing.

Anyone may call it: the log is the caller's own. Its size is bounded (events, and the
request's bytes by the transport), and so is the work of one call (a page of views). A
long log takes a second or two of CPU to replay: that runs in a worker process
(heavy_reads.py), so the event loop keeps serving every other call meanwhile, and a
caller has only a few running at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import Viewer
from engines.registry import AnyEngine
from service.app.logs.verify import Problem, verify
from service.app.model import envelopes
from service.app.model.errors import invalid_argument
from service.app.model.heavy_reads import HeavyReads
from service.app.views.descriptions import Audience
from service.app.views.listing import outcome_of, status_code
from service.app.views.views import legal_commands, redact

MAX_LOG_EVENTS = 10_000
DEFAULT_PAGE = 100
MAX_PAGE = 1000


class LogReplays:
    """ReplayLog, with its bound on the work in flight (one per GameApp)."""

    def __init__(self, heavy: HeavyReads | None = None) -> None:
        self._heavy = heavy or HeavyReads()

    async def replay_log(
        self, request: game_service_pb2.ReplayLogRequest, token: str
    ) -> game_service_pb2.ReplayLogResponse:
        """ReplayLog: the token is not needed (nor checked): nothing of the server is shown;
        it counts the caller's heavy reads."""
        log = request.log
        if not request.HasField("log"):
            raise invalid_argument("log", "Send the log to replay (a complete log, as `ludotheque export` writes it).")
        if len(log.events) > MAX_LOG_EVENTS:
            raise invalid_argument("log.events", f"A log of at most {MAX_LOG_EVENTS} events can be replayed here.")
        if request.page_size > MAX_PAGE:
            raise invalid_argument("page_size", f"page_size is at most {MAX_PAGE}.")
        viewer = _viewer(request)
        if len(log.events) < self._heavy.settings.read_events:
            return _replay(request, viewer)
        data = await self._heavy.run("ReplayLog", token, replay_in_worker, request.SerializeToString(), viewer)
        return game_service_pb2.ReplayLogResponse.FromString(data)


def replay_in_worker(request: bytes, viewer: Viewer) -> bytes:
    """A worker's job: `_replay` of the request's bytes, encoded."""
    return _replay(game_service_pb2.ReplayLogRequest.FromString(request), viewer).SerializeToString()


def _replay(request: game_service_pb2.ReplayLogRequest, viewer: Viewer) -> game_service_pb2.ReplayLogResponse:
    """Verifies and replays the log (engines are pure: in a worker process, for a long one)."""
    log = request.log
    for event in log.events:
        event.ClearField("description")  # the sender's words, if any: ours replace them (as ImportGame drops them)
    checked = verify(log)
    response = game_service_pb2.ReplayLogResponse()
    if isinstance(checked, Problem):
        response.problem.CopyFrom(
            game_service_pb2.LogProblem(
                event=0 if checked.index is None else checked.index + 1,
                reason=checked.reason,
                where=checked.where,
                rules_mismatch=checked.rules_mismatch,
            )
        )
        engine, states = checked.engine, list(checked.states)
    else:
        response.valid = True
        engine, states = checked.engine, checked.states
    if engine is None or not states:
        return response  # the header itself does not replay: nothing to show
    response.replayed = len(states) - 1
    _show(response, request, engine, states, viewer, checked.seats or tuple(log.header.seats), checked.dealt_at)
    return response


def _viewer(request: game_service_pb2.ReplayLogRequest) -> Viewer:
    if request.HasField("as_seat"):
        if request.as_spectator:
            raise invalid_argument("as_spectator", "Ask for a seat's view or a spectator's, not both.")
        if request.as_seat >= len(request.log.header.seats):
            raise invalid_argument("as_seat", f"This log has no seat {request.as_seat}.")
        return Viewer.player(request.as_seat)
    return Viewer.spectator() if request.as_spectator else Viewer.admin()


def _show(
    response: game_service_pb2.ReplayLogResponse,
    request: game_service_pb2.ReplayLogRequest,
    engine: AnyEngine,
    states: list[Any],
    viewer: Viewer,
    seats: Sequence[game_pb2.Seat],
    dealt_at: int,
) -> None:
    """The steps from `from_version` to `to_version` (clamped to what replayed), a page."""
    last = len(states) - 1
    if request.HasField("to_version"):
        last = min(last, request.to_version)
    first = request.from_version
    stop = min(last, first + (request.page_size or DEFAULT_PAGE) - 1)
    audience = Audience.of(seats, request.locale)
    for version in range(first, stop + 1):
        state = states[version]
        status = engine.status(state)
        seen = engine.view(state, viewer)
        step = game_service_pb2.ReplayLogStep(
            at_version=version,
            status=status_code(status, dealt_at == 0 or version > dealt_at),
            to_act=status.to_act,
            outcome=outcome_of(status, seats, engine, state, audience),
            view=envelopes.view(engine.kind, seen),
            legal_commands=legal_commands(engine, state, viewer, audience, seen),
        )
        if version > 0:
            event = redact(engine, request.log.events[version - 1], viewer, audience)
            if event is not None:
                step.event.CopyFrom(event)
        response.steps.append(step)
    if stop < last:
        response.next_from_version = stop + 1
