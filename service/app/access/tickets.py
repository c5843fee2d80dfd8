"""Stream tickets: a seat's token exchanged for a short-lived, single-use ticket to one
game's event stream, for clients that cannot send an authorization header (a browser's
EventSource puts the ticket in the URL instead).

A ticket is `<game_id>.<seat or "admin">.<generation>.<expiry ms>.<nonce>.<HMAC>`: any
process of the deployment checks it without a table. It is bound to the token it came
from: `generation` is the seat's token generation when it was issued
(LiveGame.seat_generation), so once the seat changes hands (its player left, another
joined it, the admin rotated its token) the ticket is refused as its token is, and the
stream it opened ends as a token's does (History.follow). Its single use is a mark of
its nonce in the store (`mark_once`), kept a little longer than the ticket lives, so a
ticket spent on one process is spent on all of them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from ludotheque.v1 import game_service_pb2

from engines.contract import ADMIN, Role, Viewer
from service.app.access.kit import Kit, UseCase
from service.app.model.errors import unauthenticated
from service.app.model.live_game import LiveGame
from service.app.model.stored import store_errors
from service.app.views.listing import timestamp

# A used ticket's mark outlives the ticket by this much, for processes whose clocks
# are a little ahead of the one that marked it.
CLOCK_SKEW_MS = 60_000
MAX_TICKET_LENGTH = 256
ADMIN_WHO = "admin"


@dataclass(frozen=True, slots=True)
class Redeemed:
    """Who a ticket stands for, and the generation of the seat's tokens it was issued at
    (0 for the admin's): its stream ends once the seat's generation is another."""

    viewer: Viewer
    generation: int


class StreamTickets(UseCase):
    def __init__(self, kit: Kit, ttl_seconds: float) -> None:
        if ttl_seconds <= 0:
            raise ValueError("a stream ticket must live a positive number of seconds")
        super().__init__(kit)
        self._key = kit.tokens.derived_key("stream tickets")
        self._ttl_ms = int(ttl_seconds * 1000)

    async def issue_stream_ticket(
        self, request: game_service_pb2.IssueStreamTicketRequest, token: str
    ) -> game_service_pb2.IssueStreamTicketResponse:
        live, viewer = await self._open(request.game_id, token, refresh=False)
        if viewer.role is Role.SPECTATOR:
            raise unauthenticated("Send your seat token to get a ticket (a spectator's stream needs none).")
        expires_ms = self._now_ms() + self._ttl_ms
        who = ADMIN_WHO if viewer.seat is None else str(viewer.seat)
        generation = 0 if viewer.seat is None else live.seat_generation(viewer.seat)
        body = f"{live.game_id}.{who}.{generation}.{expires_ms}.{secrets.token_urlsafe(16)}"
        return game_service_pb2.IssueStreamTicketResponse(
            ticket=f"{body}.{self._mac(body)}", expires_at=timestamp(expires_ms)
        )

    async def redeem(self, live: LiveGame, ticket: str) -> Redeemed:
        """Who the ticket stands for in this game, spending it. Raises UNAUTHENTICATED
        for a ticket that is forged, expired, for another game, already used, or whose
        seat changed hands since it was issued (`live` as fresh as its token's check)."""
        body, _, mac = ticket.rpartition(".")
        parts = body.split(".")
        if (
            len(ticket) > MAX_TICKET_LENGTH
            or len(parts) != 5
            or not hmac.compare_digest(mac.encode(), self._mac(body).encode())
        ):
            raise unauthenticated("This stream ticket is not valid.")
        game_id, who, generation_text, expires_text, nonce = parts
        if game_id != live.game_id:
            raise unauthenticated("This stream ticket is for another game.")
        left_ms = int(expires_text) - self._now_ms()
        if left_ms <= 0:
            raise unauthenticated("This stream ticket has expired: ask for a new one (IssueStreamTicket).")
        viewer = ADMIN if who == ADMIN_WHO else Viewer.player(int(who))
        generation = int(generation_text)
        if viewer.seat is not None:
            if viewer.seat >= len(live.record.seats):
                raise unauthenticated("This stream ticket is not valid.")
            if live.table.seats[viewer.seat].open or live.seat_generation(viewer.seat) != generation:
                raise unauthenticated(
                    "This stream ticket's seat changed hands since it was issued (its player left, another "
                    "joined it, or its token was replaced): ask for a new one with the seat's token."
                )
        with store_errors():
            first_use = await self._games.store.mark_once(f"ticket:{nonce}", left_ms + CLOCK_SKEW_MS)
        if not first_use:
            raise unauthenticated("This stream ticket was used already: ask for a new one (IssueStreamTicket).")
        return Redeemed(viewer, generation)

    def _mac(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
