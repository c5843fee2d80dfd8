"""What a viewer is shown of a game: events redacted for them, their view and legal
commands, the outcome, and the summary that ListGames lists."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from ludotheque.v1 import game_pb2

from engines.contract import Role, Status, Viewer
from engines.registry import AnyEngine
from service.app import envelopes
from service.app.live import LiveGame

STATUS_NAMES = {
    game_pb2.GAME_STATUS_ACTIVE: "active",
    game_pb2.GAME_STATUS_FINISHED: "finished",
    game_pb2.GAME_STATUS_OPEN: "open",
}


def redact(engine: AnyEngine, event: game_pb2.Event, viewer: Viewer) -> game_pb2.Event | None:
    """The event as `viewer` may see it (None: not at all); only the admin sees the command."""
    if event.HasField("table"):
        return event  # who sits and plays where is no secret, and a table event has no command
    payload = envelopes.event_payload(event)
    redacted = engine.redact(payload, viewer)
    if redacted is None:
        return None
    if viewer.is_admin:
        return event
    out = game_pb2.Event()
    out.CopyFrom(event)
    out.ClearField("command")
    if redacted is not payload:
        getattr(out, engine.kind).CopyFrom(redacted)
    return out


def legal_commands(engine: AnyEngine, state: Any, viewer: Viewer) -> list[game_pb2.Command]:
    """A seat's legal commands; the admin's are those of every seat to act."""
    if viewer.role is Role.SEAT:
        assert viewer.seat is not None
        seats: Sequence[int] = (viewer.seat,)
    elif viewer.is_admin:
        seats = engine.status(state).to_act
    else:
        return []
    return [envelopes.command(engine.kind, c) for seat in seats for c in engine.legal_commands(state, seat)]


def view(live: LiveGame, state: Any, viewer: Viewer) -> game_pb2.GameView:
    return envelopes.view(live.engine.kind, live.engine.view(state, viewer))


def outcome(live: LiveGame, status: Status) -> game_pb2.Outcome:
    if not status.finished:
        return game_pb2.Outcome()
    names = [seat.name for seat in live.record.seats]
    summary = re.sub(r"\{(\d+)\}", lambda m: names[int(m.group(1))], status.summary)
    return game_pb2.Outcome(winners=status.winners, scores=status.scores, summary=summary)


def summary(live: LiveGame) -> game_pb2.Game:
    """The game without any viewer's view: what ListGames shows."""
    status = live.status
    record = live.record
    table = live.table
    return game_pb2.Game(
        game_id=record.game_id,
        kind=record.kind,
        status=status_code(status, table.started),
        version=live.version,
        seats=table.seats,
        options=table.options,
        to_act=status.to_act,
        outcome=outcome(live, status),
        created_at=record.created_at,
        updated_at=timestamp(live.updated_at_ms),
        rules_version=record.rules_version,
        clock=record.clock if record.HasField("clock") else None,
        join_code=record.join_code if not table.started else "",
    )


def summary_bytes(live: LiveGame, status: Status, version: int, updated_at_ms: int) -> bytes:
    """summary(...).SerializeToString() of the game at `version`, from the fields that
    never change (encoded once per cached game) and those that do: encoded messages
    concatenated parse as one (the store keeps them opaque)."""
    table = live.table
    if not live.summary_head or live.summary_revision != table.revision:
        record = live.record
        live.summary_head = game_pb2.Game(
            game_id=record.game_id,
            kind=record.kind,
            seats=table.seats,
            options=table.options,
            created_at=record.created_at,
            rules_version=record.rules_version,
            clock=record.clock if record.HasField("clock") else None,
        ).SerializeToString()
        live.summary_revision = table.revision
    tail = game_pb2.Game(
        status=status_code(status, table.started),
        version=version,
        to_act=status.to_act,
        outcome=outcome(live, status),
        updated_at=timestamp(updated_at_ms),
    )
    return live.summary_head + tail.SerializeToString()


def game_message(live: LiveGame, viewer: Viewer, now_ms: int | None = None) -> game_pb2.Game:
    """The game now, as `viewer` sees it (GetGame); the seats' clocks as of now_ms."""
    game = summary(live)
    table = live.table
    if table.started:  # nothing to see or play before the deal
        game.view.CopyFrom(view(live, live.state, viewer))
        game.legal_commands.extend(legal_commands(live.engine, live.state, viewer))
    if table.clock is not None and now_ms is not None:
        del game.seats[:]
        game.seats.extend(table.seat_messages(now_ms))
    game.viewer.CopyFrom(viewer_message(viewer))
    return game


def status_code(status: Status, started: bool = True) -> game_pb2.GameStatus.ValueType:
    """The game's status; `started`: dealt (a game with open seats waits for its players first)."""
    if not started:
        return game_pb2.GAME_STATUS_OPEN
    return game_pb2.GAME_STATUS_FINISHED if status.finished else game_pb2.GAME_STATUS_ACTIVE


def viewer_message(viewer: Viewer) -> game_pb2.Viewer:
    role = {
        Role.SEAT: game_pb2.VIEWER_ROLE_SEAT,
        Role.SPECTATOR: game_pb2.VIEWER_ROLE_SPECTATOR,
        Role.ADMIN: game_pb2.VIEWER_ROLE_ADMIN,
    }[viewer.role]
    message = game_pb2.Viewer(role=role)
    if viewer.seat is not None:
        message.seat = viewer.seat
    return message


def timestamp(ms: int) -> Timestamp:
    stamp = Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp
