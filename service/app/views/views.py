"""What a viewer is shown of a game: events redacted for them, their view and legal
commands, the game as GetGame answers it (from the summary that ListGames lists:
listing.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from engines.contract import Role, Viewer
from engines.registry import AnyEngine
from service.app.model import envelopes
from service.app.model.live_game import LiveGame
from service.app.views.descriptions import (
    Audience,
    describe_event,
    describe_loss,
    describe_table_event,
    described_commands,
)
from service.app.views.listing import outcome, reword_outcome, summary
from service.app.words.catalogs import DEFAULT_LOCALE

if TYPE_CHECKING:
    from google.protobuf.internal.containers import RepeatedCompositeFieldContainer


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
