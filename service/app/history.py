"""Use cases of a game's history: its events (a page, or followed live) and its state
at any version (time travel), each as the caller may see them."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import Viewer
from service.app import tracing
from service.app.errors import invalid_argument
from service.app.live import LiveGame, LiveGames
from service.app.metrics import Metrics
from service.app.stored import parse_event, store_errors
from service.app.viewers import Viewers
from service.app.views import legal_commands, outcome, redact, status_code, view

MAX_EVENTS_PAGE = 1000


@dataclass(frozen=True, slots=True)
class EventStream:
    """A game's events for one viewer, from a version on. `ended`: nothing will ever
    come (a finished game read past its last event)."""

    events: AsyncIterator[game_pb2.Event]
    ended: bool


class History:
    def __init__(self, games: LiveGames, viewers: Viewers, metrics: Metrics) -> None:
        self._games = games
        self._viewers = viewers
        self._metrics = metrics

    async def list_events(
        self, request: game_service_pb2.ListEventsRequest, token: str
    ) -> game_service_pb2.ListEventsResponse:
        live = await self._games.load(request.game_id)
        viewer = self._viewers.in_game(live, token)
        if request.page_size > MAX_EVENTS_PAGE:
            raise invalid_argument("page_size", f"page_size is at most {MAX_EVENTS_PAGE}.")
        first = max(request.from_version, 1)
        last = min(request.to_version or live.version, live.version)
        stop = min(last, first + (request.page_size or MAX_EVENTS_PAGE) - 1)
        with store_errors():
            stored = await self._games.store.read(live.game_id, first, stop) if first <= stop else []
        response = game_service_pb2.ListEventsResponse(version=live.version)
        for item in stored:
            redacted = redact(live.engine, parse_event(item), viewer)
            if redacted is not None:
                response.events.append(redacted)
        if stop < last:
            response.next_from_version = stop + 1
        return response

    async def stream_events(self, request: game_service_pb2.StreamEventsRequest, token: str) -> EventStream:
        """Checks the request now (so transports can answer an error before they
        start streaming), then returns the events as they come."""
        live = await self._games.load(request.game_id)
        viewer = self._viewers.in_game(live, token)
        from_version = max(request.from_version, 1)
        ended = live.status.finished and from_version > live.version
        return EventStream(_visible(self.follow(live, viewer, from_version)), ended)

    async def follow(
        self, live: LiveGame, viewer: Viewer, from_version: int
    ) -> AsyncIterator[tuple[game_pb2.Event, game_pb2.Event | None]]:
        """Every event from `from_version` on, then live ones, until the game is over:
        each as stored and as `viewer` may see it (None: not at all)."""
        if live.status.finished and from_version > live.version:
            return
        self._metrics.subscriptions.inc()
        since_ms = time.time() * 1000  # events recorded from now on are live ones: their lag is measured
        try:
            with store_errors():
                async for stored in self._games.store.subscribe(live.game_id, from_version):
                    with tracing.delivery(live.traced_move, stored.version, seat=viewer.seat):
                        event = parse_event(stored)
                        self._metrics.observe_delivery(event.recorded_at.ToMilliseconds(), since_ms)
                        yield event, redact(live.engine, event, viewer)
                    if event.game_over:
                        return
        finally:
            self._metrics.subscriptions.dec()

    async def replay(
        self, request: game_service_pb2.ReplayGameRequest, token: str
    ) -> game_service_pb2.ReplayGameResponse:
        live = await self._games.load(request.game_id)
        viewer = self._viewers.in_game(live, token)
        at = request.at_version if request.HasField("at_version") else live.version
        if at > live.version:
            raise invalid_argument("at_version", f"The game has {live.version} events; at_version cannot be {at}.")
        state = live.state if at == live.version else await self._games.state_at(live, at)
        status = live.engine.status(state)
        return game_service_pb2.ReplayGameResponse(
            at_version=at,
            version=live.version,
            status=status_code(status),
            to_act=status.to_act,
            outcome=outcome(live, status),
            view=view(live, state, viewer),
            legal_commands=legal_commands(live.engine, state, viewer),
        )


async def _visible(
    events: AsyncIterator[tuple[game_pb2.Event, game_pb2.Event | None]],
) -> AsyncIterator[game_pb2.Event]:
    async for _, redacted in events:
        if redacted is not None:
            yield redacted
