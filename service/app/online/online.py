"""The online side of the service that the other use cases hook into: join codes, who
is connected (presence) and the turn clocks' schedule, over the store's coordination."""

from __future__ import annotations

from collections.abc import Callable

from ludotheque.v1 import game_pb2

from service.app.model.live_game import LiveGame
from service.app.model.stored import store_errors
from service.app.observe.metrics import Metrics
from service.app.online.clocks import ClockSchedule
from service.app.online.join_codes import JoinCodes
from service.app.online.presence import Presence, rematch_key
from service.store.base import Coordination


class Online:
    def __init__(
        self, coordination: Coordination, now_ms: Callable[[], int], metrics: Metrics, presence_ttl_ms: int
    ) -> None:
        self.coordination = coordination
        self.join_codes = JoinCodes(coordination)
        self.presence = Presence(coordination, now_ms, metrics, presence_ttl_ms)
        self.schedule = ClockSchedule(coordination)

    async def moved(self, live: LiveGame, previous_version: int) -> None:
        """After this process stored a change of the game (from previous_version)."""
        await self.schedule.scheduled(live, previous_version)

    async def show(self, live: LiveGame, game: game_pb2.Game) -> None:
        """Fills in who is connected to the game, and a finished game's rematch."""
        with store_errors():
            presence = game.presence
            presence.SetInParent()
            seats = live.table.seats
            online = await self.presence.online(live.game_id)
            presence.online_seats.extend([seat for seat in online if seat < len(seats) and not seats[seat].open])
            if live.status.finished:
                game.rematch_game_id = await self.coordination.lookup(rematch_key(live.game_id)) or ""
