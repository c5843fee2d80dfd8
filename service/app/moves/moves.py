"""Use cases of moves: play a seat's command (and the bot moves it lets happen), once
per command id, retried on a conflict with another process, and answer with the result."""

from __future__ import annotations

import hashlib
import logging
import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import RuleViolation, Viewer
from service.app.access.kit import Kit, UseCase
from service.app.access.viewers import acting_seat
from service.app.model import envelopes
from service.app.model.bot_choices import BotChoices
from service.app.model.errors import Code, ServiceError, invalid_argument, rule_violation, stale_version, versions_lost
from service.app.model.live_game import LiveGame
from service.app.model.seeding import DECIDE
from service.app.model.snapshots import passes
from service.app.model.stored import parse_event, store_errors
from service.app.moves.append import Appends
from service.app.moves.steps import Step, play_bots, rng
from service.app.moves.writer import Decision
from service.app.observe import request_context, tracing
from service.app.views.descriptions import Audience
from service.app.views.listing import outcome, status_code
from service.app.views.views import events_into, shown_into

log = logging.getLogger(__name__)

COMMAND_ID_PATTERN = re.compile(r"^[\x21-\x7e]{1,128}$")

# How ludotheque_commands_total labels a refused command.
OUTCOMES = {
    Code.FAILED_PRECONDITION: "illegal",
    Code.INVALID_ARGUMENT: "invalid",
    Code.NOT_FOUND: "invalid",
    Code.ALREADY_EXISTS: "invalid",
    Code.ABORTED: "stale",
    Code.UNAUTHENTICATED: "unauthorised",
    Code.PERMISSION_DENIED: "unauthorised",
    Code.UNAVAILABLE: "unavailable",
}


@dataclass(frozen=True, slots=True)
class Applied:
    """A command played (or found already played: `replayed`): its events, versions
    first_version..last_version (bot moves included)."""

    live: LiveGame
    viewer: Viewer
    events: list[game_pb2.Event]
    first_version: int
    last_version: int
    replayed: bool = False


class Moves(UseCase):
    def __init__(self, kit: Kit, appends: Appends) -> None:
        super().__init__(kit)
        self._appends = appends

    async def submit(
        self, request: game_service_pb2.SubmitCommandRequest, token: str
    ) -> game_service_pb2.SubmitCommandResponse:
        done = await self.apply_command(request, token)
        if done.replayed:
            response = await self._replayed(done.live, token, done.first_version, done.last_version, request.locale)
        else:
            response = submit_response(done.live, done.viewer, done.events, request.locale)
        if done.live.table.clock is not None:
            response.seats.extend(done.live.table.seat_messages(self._now_ms()))
        return response

    @tracing.move_span
    async def apply_command(self, request: game_service_pb2.SubmitCommandRequest, token: str) -> Applied:
        """Plays a command (SubmitCommand without building its response: Play uses it)."""
        labels = {"kind": "unknown", "command": "unknown"}
        metrics = self._metrics
        start = time.perf_counter()
        try:
            done = await self._apply(request, token, labels)
        except ServiceError as error:
            outcome = OUTCOMES.get(error.code, "error")
            metrics.labelled(metrics.commands, labels["kind"], labels["command"], outcome).inc()
            request_context.note(outcome=outcome)
            raise
        if done.replayed:
            metrics.labelled(metrics.commands, labels["kind"], labels["command"], "replayed").inc()
            metrics.labelled(metrics.idempotent_replays, labels["kind"]).inc()
            request_context.note(outcome="replayed")
        else:
            metrics.labelled(metrics.commands, labels["kind"], labels["command"], "accepted").inc()
            metrics.labelled(metrics.command_seconds, labels["kind"]).observe(time.perf_counter() - start)
            request_context.note(outcome="accepted")
        return done

    async def _apply(
        self, request: game_service_pb2.SubmitCommandRequest, token: str, labels: dict[str, str]
    ) -> Applied:
        command_id = request.command_id
        if command_id and not COMMAND_ID_PATTERN.match(command_id):
            raise invalid_argument("command_id", "command_id must be 1 to 128 printable ASCII characters, no spaces.")
        request_context.note(command_id=command_id)
        if not request.HasField("command"):
            raise invalid_argument("command", "command is missing.")
        games = self._games
        async with games.cache.lock(request.game_id):
            # A cached game is not read again before deciding: the append's
            # compare-and-set finds out when another process moved it (then we catch up
            # and decide again), which saves the store a round trip on every move.
            live = await games.load(request.game_id, refresh=False)
            engine = live.engine
            labels["kind"] = engine.kind
            viewer = self._viewers.in_game(live, token)
            seat = acting_seat(live, viewer, request)
            request_context.note(seat=seat)
            tracing.annotate(seat=seat)
            live.table.check_playable(seat)
            payload = envelopes.unwrap(request.command, engine.kind, "command")
            labels["command"] = payload.WhichOneof(payload.DESCRIPTOR.oneofs[0].name) or "unknown"
            command = envelopes.command(engine.kind, payload)
            fingerprint = hashlib.sha256(b"%d:" % seat + command.SerializeToString(deterministic=True)).digest()
            key = f"{seat}/{command_id}" if command_id else f"{seat}/auto-{uuid.uuid4().hex}"
            expected = request.expected_version if request.HasField("expected_version") else None
            every = games.snapshots.every

            async def decide_move(live: LiveGame) -> Decision:
                # Decided at live.version: a long chain of bot moves hands the event loop
                # back, and a read of this process may catch the cached game up
                # meanwhile; the append's compare-and-set on that version then tells.
                if expected is not None and expected != live.version:
                    raise version_error(live, expected)
                state, steps = await decide(live, seat, command, payload, every, self._bots)
                return Decision(steps, state, key, fingerprint)

            def recheck(live: LiveGame) -> None:
                self._viewers.in_game(live, token)  # say nothing more to a token rotated meanwhile
                live.table.check_playable(seat)  # nor to a seat a bot took over meanwhile

            done = await self._appends.append(live, decide_move, recheck, key=key, fingerprint=fingerprint)
            return Applied(live, viewer, done.events, done.first_version, done.last_version, done.replayed)

    async def _replayed(
        self, live: LiveGame, token: str, first: int, last: int, locale: str
    ) -> game_service_pb2.SubmitCommandResponse:
        """The response the first submission of a command id got."""
        games = self._games
        await games.refresh(live)
        viewer = self._viewers.in_game(live, token)  # as of now: the seat's token may have been rotated
        with store_errors():
            stored = await games.store.read(live.game_id, first, last)
        state = live.state if last == live.version else await games.repository.state_at(live, last)
        events = [parse_event(item) for item in stored]
        return submit_response(live, viewer, events, locale, state=state, version=last, replayed=True)


def version_error(live: LiveGame, expected: int) -> ServiceError:
    """Why `expected` is not the game's version: it moved on (ABORTED: read it again and
    retry), or the store lost that version (FAILED_PRECONDITION, naming what was lost)."""
    for loss in live.losses:
        if loss.first <= expected <= loss.last:
            return versions_lost(loss.first, loss.last, live.version)
    if expected > live.version:
        return versions_lost(live.version + 1, expected, live.version)
    return stale_version(expected, live.version)


async def decide(
    live: LiveGame, seat: int, command: game_pb2.Command, payload: Message, snapshot_every: int, bots: BotChoices
) -> tuple[Any, list[Step]]:
    """The events of `command` then of the bot moves it lets happen (or the stop of a
    game that reaches its event limit; each bot choosing where `bots` says), and the
    state after them; the steps that pass a multiple of `snapshot_every` keep their state."""
    engine, version = live.engine, live.version
    try:
        payloads = engine.decide(live.state, seat, payload, rng(live, DECIDE, version))
    except RuleViolation as violation:
        raise rule_violation(engine.kind, violation.code, violation.message) from violation
    state = live.state
    for item in payloads:
        state = engine.evolve(state, item)
    after = version + len(payloads)
    kept = state if passes(version, after, snapshot_every) else None
    state, bot_steps = await play_bots(live, state, after, snapshot_every=snapshot_every, choices=bots)
    return state, [Step(seat, command, payloads, kept), *bot_steps]


def submit_response(
    live: LiveGame,
    viewer: Viewer,
    events: Sequence[game_pb2.Event],
    locale: str,
    *,
    state: Any = None,
    version: int | None = None,
    replayed: bool = False,
) -> game_service_pb2.SubmitCommandResponse:
    """The answer to a command, in `locale`: the events redacted for the caller, their
    view and legal commands. A replayed answer tells the past again: as the caller may
    recall it now (the game's memory rule)."""
    now = live.state if replayed else None
    state = live.state if state is None else state
    status = live.engine.status(state)
    audience = Audience.of(live.table.seats, locale)
    response = game_service_pb2.SubmitCommandResponse()  # set one by one: keywords cost more
    response.version = live.version if version is None else version
    response.status = status_code(status)
    response.to_act.extend(status.to_act)
    response.replayed = replayed
    if status.finished:
        response.outcome.CopyFrom(outcome(live, status, state, audience))
    else:
        response.outcome.SetInParent()  # present and empty, as outcome() makes it
    shown_into(response.view, response.legal_commands, live, state, viewer, audience, now)
    events_into(response.events, live.engine, events, viewer, audience, now)
    return response
