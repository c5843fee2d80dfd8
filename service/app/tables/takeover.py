"""Use cases of bots standing in for players: a bot takes a seat over (its player asked,
or the turn clock did after missed turns: clocks.py) and hands it back when the player
returns. Both are table events (SeatTakenOver, SeatHandedBack), so a replay knows who
played each move; a bot that takes over the seat whose turn it is plays at once.

A bot that takes over the last player's seat leaves a game of bots only, which then plays
itself out in this call: it counts as a game of bots only for the creation limits
(limits.py: --bot-game-rate; none but the admin's by default), so a take-over is no way
around them."""

from __future__ import annotations

import uuid

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import Role, Viewer
from service.app.access.creators import ADMIN_CREATOR, recorded_creator
from service.app.access.kit import Kit, UseCase
from service.app.games.games import validate_bot
from service.app.model.errors import invalid_argument, permission_denied, unauthenticated
from service.app.model.live_game import LiveGame
from service.app.model.table import refusal, table_event
from service.app.moves.steps import Step, play_bots
from service.app.moves.table_changes import Change, TableChanges
from service.app.online.online import Online
from service.app.views.views import game_message

LAST_PLAYER = (
    "A bot may not take the last player's seat: the game would be one of bots only, which only the admin may have."
)


class TakeOvers(UseCase):
    def __init__(self, kit: Kit, changes: TableChanges, online: Online) -> None:
        super().__init__(kit)
        self._changes = changes
        self._online = online

    async def take_over(
        self, request: game_service_pb2.TakeOverSeatRequest, token: str
    ) -> game_service_pb2.TakeOverSeatResponse:
        live, viewer = await self._open(request.game_id, token)
        seat = _seat(live, viewer, request.seat if request.HasField("seat") else None)
        bot = request.bot or live.table.stand_in(seat)
        validate_bot(bot, "bot", live.engine)

        async def decide(live: LiveGame) -> Change | None:
            table = live.table
            _check_playing(live)
            if table.seats[seat].taken_over_by == bot:
                return None  # so it is already
            if table.clocked == [seat]:  # the last player's: a game of bots only from now on
                creator = ADMIN_CREATOR if viewer.is_admin else recorded_creator(live.record.created_by)
                await self._quotas.admit_bots_only(creator, live.game_id, LAST_PLAYER)
            reason = game_pb2.TAKE_OVER_REASON_REQUESTED
            change = table_event(taken_over=game_pb2.SeatTakenOver(seat=seat, bot=bot, reason=reason))
            bots = {**table.bots, seat: bot}
            state, steps = await play_bots(live, live.state, live.version + 1, bots, choices=self._bots)
            return Change([Step(None, None, [change]), *steps], state, f"table/takeover-{uuid.uuid4().hex}")

        live, events = await self._changes.make(live.game_id, decide)
        if events:
            self._metrics.labelled(self._metrics.take_overs, live.engine.kind, "requested").inc()
        return game_service_pb2.TakeOverSeatResponse(game=await self._shown(live, viewer, request.locale))

    async def hand_back(
        self, request: game_service_pb2.HandBackSeatRequest, token: str
    ) -> game_service_pb2.HandBackSeatResponse:
        live, viewer = await self._open(request.game_id, token)
        seat = _seat(live, viewer, request.seat if request.HasField("seat") else None)
        live = await self._hand_back(live, seat, None)
        return game_service_pb2.HandBackSeatResponse(game=await self._shown(live, viewer, request.locale))

    async def returned(self, live: LiveGame, viewer: Viewer) -> None:
        """The seat's player came back (opened a Play session): a seat the clock took
        over is theirs again (one they gave a bot themselves stays the bot's)."""
        seat = viewer.seat
        by_clock = game_pb2.TAKE_OVER_REASON_MISSED_TURNS
        if viewer.role is Role.SEAT and seat is not None and live.table.reasons.get(seat) == by_clock:
            await self._hand_back(live, seat, by_clock)

    async def _hand_back(self, live: LiveGame, seat: int, only: game_pb2.TakeOverReason.ValueType | None) -> LiveGame:
        async def decide(live: LiveGame) -> Change | None:
            table = live.table
            if not table.seats[seat].taken_over_by or (only is not None and table.reasons.get(seat) != only):
                return None  # the player plays it already
            change = table_event(handed_back=game_pb2.SeatHandedBack(seat=seat))
            return Change([Step(None, None, [change])], live.state, f"table/handback-{uuid.uuid4().hex}")

        live, events = await self._changes.make(live.game_id, decide)
        if events:
            self._metrics.labelled(self._metrics.hand_backs, live.engine.kind).inc()
        return live

    async def _shown(self, live: LiveGame, viewer: Viewer, locale: str) -> game_pb2.Game:
        game = game_message(live, viewer, locale, self._now_ms())
        await self._online.show(live, game)
        return game


def _seat(live: LiveGame, viewer: Viewer, requested: int | None) -> int:
    """The human seat a take-over or a hand back is for: the caller's own, or the one
    the admin names."""
    if viewer.role is Role.SPECTATOR:
        raise unauthenticated("Send your seat token (authorization: Bearer <token>).")
    if viewer.seat is None:  # the admin
        if requested is None:
            raise invalid_argument("seat", "An admin must say which seat.")
        if requested >= len(live.table.seats):
            raise invalid_argument("seat", f"This game has no seat {requested}.")
        seat = requested
    else:
        seat = viewer.seat
        if requested is not None and requested != seat:
            raise permission_denied(f"Your token is for seat {seat}, not seat {requested}.")
    if live.table.seats[seat].bot:
        raise invalid_argument("seat", f"Seat {seat} is a bot's: only a player's seat is taken over or handed back.")
    return seat


def _check_playing(live: LiveGame) -> None:
    if not live.table.started:
        raise refusal("GAME_NOT_STARTED", "The game has not started: there is no seat to take over yet.")
    if live.status.finished:
        raise refusal("GAME_OVER", "The game is over.")
