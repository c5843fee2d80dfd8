"""Use cases of a game's seats: the admin gives a seat a new token.

A seat's tokens carry its generation (service/app/access/auth.py): the players who joined the
seat (table events) plus the admin's rotations of its token, a counter kept with the
game in the store (LiveGame.seat_generation). Rotating bumps the counter, so every
process that checks a token of the seat sees the new generation at its next read of
the game, and the append of a move played with an older token is refused
(GameRepository.refresh, Moves)."""

from __future__ import annotations

from ludotheque.v1 import game_service_pb2

from service.app.access.kit import UseCase
from service.app.model.errors import invalid_argument, permission_denied, unauthenticated
from service.app.model.live_game import seat_counter
from service.app.model.stored import store_errors
from service.app.model.table import refusal


class Seats(UseCase):
    async def rotate_seat_token(
        self, request: game_service_pb2.RotateSeatTokenRequest, token: str
    ) -> game_service_pb2.RotateSeatTokenResponse:
        if not self._tokens.is_admin(token):
            if token:
                raise permission_denied("Only the admin may give a seat a new token.")
            raise unauthenticated("Send the admin token to give a seat a new token.")
        live = await self._games.load(request.game_id)
        if request.seat >= len(live.record.seats):
            raise invalid_argument("seat", f"This game has no seat {request.seat}.")
        if live.table.seats[request.seat].open:
            raise refusal("SEAT_OPEN", f"Seat {request.seat} is open: nobody holds a token of it to replace.")
        with store_errors():
            rotations = await self._games.store.bump(live.game_id, seat_counter(request.seat))
        # This process knows at once: its open streams of the old token end at their next
        # event. The refresh also brings any join appended meanwhile: the generation
        # counts the seat's joins as of now.
        await self._games.repository.reload_counters(live)
        await self._games.refresh(live)
        generation = live.table.joins[request.seat] + rotations
        return game_service_pb2.RotateSeatTokenResponse(
            seat_token=self._tokens.seat_token(live.game_id, request.seat, generation)
        )
