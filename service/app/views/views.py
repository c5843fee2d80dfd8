"""What a viewer is shown of a game: events redacted for them, their view and legal
commands, the outcome, and the summary that ListGames lists."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from ludotheque.v1 import game_pb2

from engines.contract import ADMIN, Role, Status, Viewer
from engines.describers import DESCRIBERS
from engines.registry import AnyEngine
from service.app.model import envelopes
from service.app.model.live_game import LiveGame
from service.app.views.descriptions import (
    Audience,
    describe_event,
    describe_loss,
    describe_table_event,
    described_commands,
    stored_phrase,
)
from service.app.words.catalogs import DEFAULT_LOCALE

if TYPE_CHECKING:
    from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

STATUS_NAMES = {
    game_pb2.GAME_STATUS_ACTIVE: "active",
    game_pb2.GAME_STATUS_FINISHED: "finished",
    game_pb2.GAME_STATUS_OPEN: "open",
}


def redact(
    engine: AnyEngine,
    event: game_pb2.Event,
    viewer: Viewer,
    audience: Audience | None = None,
    now: Any = None,
) -> game_pb2.Event | None:
    """The event as `viewer` may see it (None: not at all); only the admin sees the
    command. With an `audience`, described for it from what the viewer may see. With
    `now` (the game's state now), a past event read again: as the viewer may recall it
    there (`Engine.recall`: the game's memory rule), not as it was seen live."""
    if audience is None and (event.HasField("table") or event.HasField("history_loss")):
        return event
    if viewer.is_admin and audience is None:
        return event if engine.redact(envelopes.event_payload(event), viewer) is not None else None
    out = game_pb2.Event()
    return out if redact_into(out, engine, event, viewer, audience, now) else None


def redact_into(
    out: game_pb2.Event,
    engine: AnyEngine,
    event: game_pb2.Event,
    viewer: Viewer,
    audience: Audience | None,
    now: Any = None,
) -> bool:
    """Writes the event as `viewer` may see it into `out` (empty); False when the viewer
    may not see it at all (then `out` stays empty). A table event (who sits and plays
    where) is no secret: everyone sees it whole; nor is a placeholder or notice of lost
    versions (no move). `now`: as redact says."""
    if event.HasField("table") or event.HasField("history_loss"):
        out.CopyFrom(event)
        if audience is not None:
            if event.HasField("table"):
                describe_table_event(out, audience)
            else:
                describe_loss(out, audience)
        return True
    payload = envelopes.event_payload(event)
    redacted = engine.redact(payload, viewer) if now is None else engine.recall(payload, now, viewer)
    if redacted is None:
        return False
    out.CopyFrom(event)
    if not viewer.is_admin:
        out.ClearField("command")
    if redacted is not payload:
        getattr(out, engine.kind).CopyFrom(redacted)
    if audience is not None:
        describe_event(engine.kind, out, redacted, audience)
    return True


def events_into(
    out: RepeatedCompositeFieldContainer[game_pb2.Event],
    engine: AnyEngine,
    events: Sequence[game_pb2.Event],
    viewer: Viewer,
    audience: Audience | None,
    now: Any = None,
) -> None:
    """Appends the events as `viewer` may see them (those it may) to an answer's `out`;
    `now`: as redact says."""
    for event in events:
        if not redact_into(out.add(), engine, event, viewer, audience, now):
            del out[-1]


class LiveAudience:
    """The words of a live game's answers in one language, with its players' names as
    they are now: players join open seats while sessions and streams follow the game."""

    def __init__(self, live: LiveGame, locale: str, anonymous: bool = False) -> None:
        self._live = live
        self._locale = locale
        self._anonymous = anonymous
        self._revision = live.table.revision
        self._audience = Audience.of(live.table.seats, locale, anonymous)

    def now(self) -> Audience:
        table = self._live.table
        if table.revision != self._revision:
            self._revision = table.revision
            self._audience = Audience.of(table.seats, self._locale, self._anonymous)
        return self._audience


def hides_players(live: LiveGame, viewer: Viewer) -> bool:
    """Whether `viewer` may not know who plays the game: a reader without a token of a
    listed game that is not public. An unlisted game's id is its invitation, shared by
    its players; a listed one's is shown to everyone, so it invites nobody in
    particular: its players' names, ages and the outcome's sentence (which names them)
    follow its visibility on every read path, as in ListGames."""
    return viewer.role is Role.SPECTATOR and live.record.visibility == game_pb2.VISIBILITY_LISTED


def audience_for(live: LiveGame, viewer: Viewer, locale: str) -> Audience:
    """The audience of an answer to `viewer` in `locale`: anonymous where it hides the players."""
    return Audience.of(live.table.seats, locale, hides_players(live, viewer))


def legal_commands(
    engine: AnyEngine, state: Any, viewer: Viewer, audience: Audience | None = None, seen: Message | None = None
) -> list[game_pb2.Command]:
    """A seat's legal commands; the admin's are those of every seat to act. With an
    `audience`, each described and with its choice steps, from `seen`: the viewer's
    view of `state` (made here when not given)."""
    payloads = _legal_payloads(engine, state, viewer)
    if audience is None or not payloads:
        return [envelopes.command(engine.kind, c) for c in payloads]
    return described_commands(engine.kind, payloads, seen or engine.view(state, viewer), audience)


def _legal_payloads(engine: AnyEngine, state: Any, viewer: Viewer) -> list[Message]:
    if viewer.role is Role.SEAT:
        assert viewer.seat is not None
        return engine.legal_commands(state, viewer.seat)
    if viewer.is_admin:
        return [c for seat in engine.status(state).to_act for c in engine.legal_commands(state, seat)]
    return []


def view(live: LiveGame, state: Any, viewer: Viewer, seen: Message | None = None) -> game_pb2.GameView:
    """The viewer's view in its envelope (`seen`: the engine's view, when made already)."""
    return envelopes.view(live.engine.kind, seen or live.engine.view(state, viewer))


def shown(
    live: LiveGame, state: Any, viewer: Viewer, audience: Audience, now: Any = None
) -> tuple[game_pb2.GameView, list[game_pb2.Command]]:
    """The viewer's view and legal commands (described), the view made once for both.
    With `now` (the game's state now, `state` being a past one), as the viewer may look
    at that past again (`Engine.recall_view`: the game's memory rule)."""
    engine = live.engine
    seen = engine.view(state, viewer)
    if now is not None and now is not state:
        seen = engine.recall_view(seen, state, now, viewer)
    return view(live, state, viewer, seen), legal_commands(engine, state, viewer, audience, seen)


def shown_into(
    view_out: game_pb2.GameView,
    commands_out: RepeatedCompositeFieldContainer[game_pb2.Command],
    live: LiveGame,
    state: Any,
    viewer: Viewer,
    audience: Audience,
    now: Any = None,
) -> None:
    """shown(...) written into an answer's `view` and `legal_commands` fields (empty)."""
    engine = live.engine
    seen = engine.view(state, viewer)
    if now is not None and now is not state:
        seen = engine.recall_view(seen, state, now, viewer)
    getattr(view_out, engine.kind).CopyFrom(seen)
    payloads = _legal_payloads(engine, state, viewer)
    if payloads:
        described_commands(engine.kind, payloads, seen, audience, into=commands_out)


def outcome(live: LiveGame, status: Status, state: Any = None, audience: Audience | None = None) -> game_pb2.Outcome:
    """The outcome of the live game at `state` (default: now), described for `audience`
    (default: in English)."""
    return outcome_of(status, live.table.seats, live.engine, live.state if state is None else state, audience)


def outcome_of(
    status: Status, seats: Sequence[game_pb2.Seat], engine: AnyEngine, state: Any, audience: Audience | None = None
) -> game_pb2.Outcome:
    """The outcome of a game at `state` (whose status is `status`): its winners and
    scores, its summary (English, naming the seats' players), and its description for
    `audience` (default: in English): the words of the event that ended the game."""
    if not status.finished:
        return game_pb2.Outcome()
    names = [seat.name for seat in seats]
    summary = re.sub(r"\{(\d+)\}", lambda m: names[int(m.group(1))], status.summary)
    message = game_pb2.Outcome(winners=status.winners, scores=status.scores, summary=summary)
    said = DESCRIBERS[engine.kind].describe_outcome(engine.view(state, ADMIN))
    told = audience or Audience.of(seats, DEFAULT_LOCALE)
    told.words.describe(said, told.names, into=message.description)
    return message


def reword_outcome(game: game_pb2.Game, locale: str) -> None:
    """Tells a listed game's outcome again in `locale`, with the seats' names as the
    listing shows them (none, once anonymised): a listing is stored with its words in
    English (outcome phrases hold seats and numbers only: descriptions.stored_phrase)."""
    if game.outcome.HasField("description"):
        audience = Audience.of(game.seats, locale)
        said = stored_phrase(game.outcome.description)
        game.outcome.ClearField("description")
        audience.words.describe(said, audience.names, into=game.outcome.description)


def summary(live: LiveGame) -> game_pb2.Game:
    """The game without any viewer's view: what ListGames shows (summary_bytes parsed;
    its tail set in place rather than encoded to be parsed again)."""
    game = game_pb2.Game.FromString(_summary_head(live))
    _summary_tail_into(game, live, live.status, live.version, live.updated_at_ms)
    return game


def summary_bytes(live: LiveGame, status: Status, version: int, updated_at_ms: int, state: Any = None) -> bytes:
    """The summary (the game without any viewer's view) at `version`, encoded, from the
    fields that change only with the table (encoded once per revision of the table) and
    those that do: encoded messages concatenated parse as one (the store keeps them
    opaque; summary() parses them, which costs less than setting a dozen fields from
    Python). `state`: the state `status` is of, when it is not the live game's yet."""
    tail = game_pb2.Game()
    _summary_tail_into(tail, live, status, version, updated_at_ms, state)
    return _summary_head(live) + tail.SerializeToString()


def _summary_head(live: LiveGame) -> bytes:
    """The summary's fields that change only with the table, encoded once per revision."""
    table = live.table
    cached = live.summary_head
    if not cached.encoded or cached.revision != table.revision:
        record = live.record
        cached.encoded = game_pb2.Game(
            game_id=record.game_id,
            kind=record.kind,
            seats=table.seats,
            options=table.options,
            created_at=record.created_at,
            rules_version=record.rules_version,
            visibility=record.visibility,
            clock=record.clock if record.HasField("clock") else None,
            join_code=record.join_code if not table.started else "",
        ).SerializeToString()
        cached.revision = table.revision
    return cached.encoded


def _summary_tail_into(
    out: game_pb2.Game, live: LiveGame, status: Status, version: int, updated_at_ms: int, state: Any = None
) -> None:
    """Writes the summary's fields that change with every move into `out` (none set):
    one by one, as the constructor's keywords cost more."""
    out.status = status_code(status, live.table.started)
    out.version = version
    out.to_act.extend(status.to_act)
    if live.losses:
        out.history_losses.extend(live.losses)
    # Set in place: an Outcome and a Timestamp made only to be copied cost more than
    # the fields (an unfinished game's outcome is present and empty, as before).
    if status.finished:
        out.outcome.CopyFrom(outcome(live, status, state))
    else:
        out.outcome.SetInParent()
    seconds, millis = divmod(updated_at_ms, 1000)
    updated_at = out.updated_at
    updated_at.seconds, updated_at.nanos = seconds, millis * 1_000_000


def game_message(live: LiveGame, viewer: Viewer, locale: str, now_ms: int | None = None) -> game_pb2.Game:
    """The game now, as `viewer` sees it (GetGame), its moves described in `locale`;
    the seats' clocks as of now_ms."""
    game = summary(live)
    table = live.table
    audience = audience_for(live, viewer, locale)
    if table.started:  # nothing to see or play before the deal
        shown_into(game.view, game.legal_commands, live, live.state, viewer, audience)
        if live.status.finished:  # its words in the caller's language
            game.outcome.CopyFrom(outcome(live, live.status, live.state, audience))
    if table.clock is not None and now_ms is not None:
        del game.seats[:]
        game.seats.extend(table.seat_messages(now_ms))
    if audience.anonymous:
        anonymise_seats(game.seats)
        game.outcome.ClearField("summary")
    viewer_into(game.viewer, viewer)
    if viewer.is_admin:
        game.created_by = live.record.created_by
    return game


def anonymised(game: game_pb2.Game) -> None:
    """Takes the players' names and ages (and the outcome's sentence, which names them)
    out of a listed game that is not public: what ListGames shows all but the admin."""
    if game.visibility == game_pb2.VISIBILITY_PUBLIC:
        return
    anonymise_seats(game.seats)
    game.outcome.ClearField("summary")
    reword_outcome(game, DEFAULT_LOCALE)  # without the names


def anonymise_seats(seats: Sequence[game_pb2.Seat]) -> None:
    """Takes the players' names and ages out of `seats` (in place)."""
    for seat in seats:
        seat.ClearField("name")
        seat.ClearField("age")


def status_code(status: Status, started: bool = True) -> game_pb2.GameStatus.ValueType:
    """The game's status; `started`: dealt (a game with open seats waits for its players first)."""
    if not started:
        return game_pb2.GAME_STATUS_OPEN
    return game_pb2.GAME_STATUS_FINISHED if status.finished else game_pb2.GAME_STATUS_ACTIVE


VIEWER_ROLES = {
    Role.SEAT: game_pb2.VIEWER_ROLE_SEAT,
    Role.SPECTATOR: game_pb2.VIEWER_ROLE_SPECTATOR,
    Role.ADMIN: game_pb2.VIEWER_ROLE_ADMIN,
}


def viewer_message(viewer: Viewer) -> game_pb2.Viewer:
    message = game_pb2.Viewer()
    viewer_into(message, viewer)
    return message


def viewer_into(out: game_pb2.Viewer, viewer: Viewer) -> None:
    """viewer_message(viewer) written into an answer's `viewer` field (empty)."""
    out.role = VIEWER_ROLES[viewer.role]
    if viewer.seat is not None:
        out.seat = viewer.seat


def timestamp(ms: int) -> Timestamp:
    seconds, millis = divmod(ms, 1000)  # as Timestamp.FromMilliseconds, without its Python calls
    return Timestamp(seconds=seconds, nanos=millis * 1_000_000)
