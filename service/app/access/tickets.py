"""Stream tickets: a seat's token exchanged for a short-lived, single-use ticket to one
game's event stream, for clients that cannot send an authorization header (a browser's
EventSource puts the ticket in the URL instead).

A ticket is `<game_id>.<seat or "admin">.<expiry ms>.<nonce>.<HMAC>`: any process of the
deployment checks it without a table. Its single use is a mark of its nonce in the store
(`mark_once`), kept a little longer than the ticket lives, so a ticket spent on one
process is spent on all of them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable

from ludotheque.v1 import game_service_pb2

from engines.contract import ADMIN, Role, Viewer
from service.app.access.auth import TokenAuthority
from service.app.access.viewers import Viewers
from service.app.model.errors import unauthenticated
from service.app.model.live import LiveGame, LiveGames
from service.app.model.stored import store_errors
from service.app.views.views import timestamp

# A used ticket's mark outlives the ticket by this much, for processes whose clocks
# are a little ahead of the one that marked it.
CLOCK_SKEW_MS = 60_000
MAX_TICKET_LENGTH = 256


class StreamTickets:
    def __init__(
        self,
        games: LiveGames,
        viewers: Viewers,
        tokens: TokenAuthority,
        now_ms: Callable[[], int],
        ttl_seconds: float,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("a stream ticket must live a positive number of seconds")
        self._games = games
        self._viewers = viewers
        self._key = tokens.derived_key("stream tickets")
        self._now_ms = now_ms
        self._ttl_ms = int(ttl_seconds * 1000)

    async def issue_stream_ticket(
        self, request: game_service_pb2.IssueStreamTicketRequest, token: str
    ) -> game_service_pb2.IssueStreamTicketResponse:
        live = await self._games.load(request.game_id, refresh=False)
        viewer = self._viewers.in_game(live, token)
        if viewer.role is Role.SPECTATOR:
            raise unauthenticated("Send your seat token to get a ticket (a spectator's stream needs none).")
        expires_ms = self._now_ms() + self._ttl_ms
        who = "admin" if viewer.is_admin else str(viewer.seat)
        body = f"{live.game_id}.{who}.{expires_ms}.{secrets.token_urlsafe(16)}"
        return game_service_pb2.IssueStreamTicketResponse(
            ticket=f"{body}.{self._mac(body)}", expires_at=timestamp(expires_ms)
        )

    async def redeem(self, live: LiveGame, ticket: str) -> Viewer:
        """Who the ticket stands for in this game, spending it. Raises UNAUTHENTICATED
        for a ticket that is forged, expired, for another game or already used."""
        body, _, mac = ticket.rpartition(".")
        parts = body.split(".")
        if (
            len(ticket) > MAX_TICKET_LENGTH
            or len(parts) != 4
            or not hmac.compare_digest(mac.encode(), self._mac(body).encode())
        ):
            raise unauthenticated("This stream ticket is not valid.")
        game_id, who, expires_text, nonce = parts
        if game_id != live.game_id:
            raise unauthenticated("This stream ticket is for another game.")
        left_ms = int(expires_text) - self._now_ms()
        if left_ms <= 0:
            raise unauthenticated("This stream ticket has expired: ask for a new one (IssueStreamTicket).")
        viewer = ADMIN if who == "admin" else Viewer.player(int(who))
        if viewer.seat is not None and viewer.seat >= len(live.record.seats):
            raise unauthenticated("This stream ticket is not valid.")
        with store_errors():
            first_use = await self._games.store.mark_once(f"ticket:{nonce}", left_ms + CLOCK_SKEW_MS)
        if not first_use:
            raise unauthenticated("This stream ticket was used already: ask for a new one (IssueStreamTicket).")
        return viewer

    def _mac(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
