"""Use cases of a game's history: its events (a page, or followed live) and its state
at any version (time travel), each as the caller may see them. A game takes at most so
many spectators following it live in one process, a seat so many streams of it, and one
client address (an IPv6 client by its /64; the admin and unknown addresses aside) so
many streams and Play sessions in all.

The past read again is what the caller may recall of it now (`Engine.recall`,
`Engine.recall_view`): while a game whose rules make players remember goes on, a page
of events, a past version, and the events a stream or a Play session sends before it
reaches the live tail show only what the table shows now; a live event, as it
happens, shows what everybody saw then."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from google.rpc import error_details_pb2
from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import Role, Viewer
from engines.registry import GAMES, AnyEngine
from service.app.access.kit import Kit, UseCase
from service.app.access.origins import ClientAddresses
from service.app.access.tickets import StreamTickets
from service.app.history import catch_up
from service.app.model.errors import (
    Code,
    ServiceError,
    invalid_argument,
    resource_exhausted,
    unauthenticated,
    versions_lost,
)
from service.app.model.heavy_reads import Caller, HeavyReads
from service.app.model.live_game import LiveGame
from service.app.model.stored import parse_event, store_errors
from service.app.observe import tracing
from service.app.views.descriptions import Audience
from service.app.views.listing import outcome, status_code
from service.app.views.views import LiveAudience, audience_for, hides_players, redact, shown
from service.store.base import StoredEvent, VersionsLost

MAX_EVENTS_PAGE = 1000
DEFAULT_MAX_FOLLOWERS = 1000  # spectators of one game following it live in one process
# Streams and Play sessions one seat may have open on one game in one process: a player's
# tabs and devices, not one token's thousand WebSockets.
MAX_SEAT_FOLLOWERS = 16
# Events of the past a follower is sent between two turns of the event loop at most: the
# stored events come without a wait, and a catch-up must not hold the players' moves.
# The slices of all catch-ups take turns (History._catch_up_turn): however many run, a
# move waits for one slice, not one of each.
CATCH_UP_SLICE = 16
# Streams and Play sessions one client address may have open at once in one process, on
# any games: what a crowd of never-read streams from one address can hold.
DEFAULT_MAX_CLIENT_FOLLOWERS = 32


@dataclass(frozen=True, slots=True)
class EventStream:
    """A game's events for one viewer, from a version on. `ended`: nothing will ever
    come (a finished game read past its last event)."""

    events: AsyncIterator[game_pb2.Event]
    ended: bool


class History(UseCase):
    def __init__(
        self,
        kit: Kit,
        tickets: StreamTickets,
        max_followers: int = DEFAULT_MAX_FOLLOWERS,
        heavy: HeavyReads | None = None,
        *,
        addresses: ClientAddresses | None = None,
        max_client_followers: int = DEFAULT_MAX_CLIENT_FOLLOWERS,
    ) -> None:
        super().__init__(kit)
        self._addresses = addresses or ClientAddresses()
        self._max_client_followers = max_client_followers  # 0: no limit
        self._clients: Counter[str] = Counter()  # client address -> its followers in this process
        self._heavy = heavy or HeavyReads()  # replays of long pasts: the process's one budget
        self._catching_up = asyncio.Lock()  # one catch-up slice at a time (_catch_up_turn)
        self._tickets = tickets
        self._max_followers = max_followers
        self._spectators: Counter[str] = Counter()  # game id -> its spectators following it in this process
        self._seats: Counter[tuple[str, int]] = Counter()  # (game id, seat) -> its followers in this process

    def _client(self, viewer: Viewer) -> str:
        """The client address a follower is counted under ("": not counted, the admin's
        or one with no known address)."""
        if viewer.role is Role.ADMIN:
            return ""
        return self._addresses.calling()

    def _admit(self, live: LiveGame, viewer: Viewer) -> None:
        """Refuses a spectator once `max_followers` spectators follow the game here (its
        seats and the admin are not counted, and always let in: spectators must not lock
        the players out); and any follower of a client address that has
        `max_client_followers` already, on any games."""
        client, most = self._client(viewer), self._max_client_followers
        if client and most and self._clients[client] >= most:
            raise resource_exhausted(
                "FOLLOWERS_PER_CLIENT",
                client,
                f"Your address follows games in {most} streams or sessions on this server already, "
                "the most it may: close one first.",
                1000,
            )
        count = self._spectators[live.game_id]
        if viewer.role is Role.SPECTATOR and count >= self._max_followers:
            raise ServiceError(
                Code.RESOURCE_EXHAUSTED,
                f"This game has {count} spectators on this server, the most it takes: try again later, "
                "or read its events a page at a time (ListEvents).",
            )
        seat = viewer.seat if viewer.role is Role.SEAT else None
        if seat is not None and self._seats[live.game_id, seat] >= MAX_SEAT_FOLLOWERS:
            raise ServiceError(
                Code.RESOURCE_EXHAUSTED,
                f"This seat follows the game in {MAX_SEAT_FOLLOWERS} streams or sessions on this server "
                "already, the most it may: close one first.",
            )

    async def list_events(
        self, request: game_service_pb2.ListEventsRequest, token: str
    ) -> game_service_pb2.ListEventsResponse:
        live, viewer = await self._open(request.game_id, token)
        if request.page_size > MAX_EVENTS_PAGE:
            raise invalid_argument("page_size", f"page_size is at most {MAX_EVENTS_PAGE}.")
        first = max(request.from_version, 1)
        last = min(request.to_version or live.version, live.version)
        stop = min(last, first + (request.page_size or MAX_EVENTS_PAGE) - 1)
        with store_errors():
            stored = await self._games.store.read(live.game_id, first, stop) if first <= stop else []
        response = game_service_pb2.ListEventsResponse(version=live.version)
        if len(stored) < self._heavy.settings.read_events:
            audience = audience_for(live, viewer, request.locale)
            response.events.extend(redacted_page(live.engine, stored, viewer, audience, live.state))
        else:  # a long page: redacted and described in a worker process
            seats, anonymous = list(live.table.seats), hides_players(live, viewer)
            job = (live.engine.kind, stored, viewer, seats, request.locale, anonymous, live.state)
            page = await self._heavy.run("ListEvents", token, page_in_worker, *job)
            response.MergeFromString(page)
        if stop < last:
            response.next_from_version = stop + 1
        return response

    async def stream_events(
        self, request: game_service_pb2.StreamEventsRequest, token: str, catch_up_page: int = 0
    ) -> EventStream:
        """Checks the request now (so transports can answer an error before they
        start streaming), then returns the events as they come. `catch_up_page`: the
        stream ends after so many events of the past when more of it remain (0: never),
        for a transport with no read receipt: its client comes back for the next page."""
        live = await self._games.load(request.game_id)
        if request.ticket:
            if token:
                raise invalid_argument("ticket", "Send a stream ticket or a token, not both.")
            redeemed = await self._tickets.redeem(live, request.ticket)
            viewer, generation = redeemed.viewer, redeemed.generation
        else:
            viewer = self._viewers.in_game(live, token)
            generation = generation_of(live, viewer)
        from_version = max(request.from_version, 1)
        ended = live.status.finished and from_version > live.version
        if not ended:
            if from_version > live.version + 1:  # now too, so that HTTP answers it as a status
                raise _past_the_end(live, from_version)
            self._admit(live, viewer)  # now, so that HTTP can answer 429 before it streams
        caller = self._heavy.caller(token or request.ticket)  # (now: the call's address; a ticket for its token)
        stream = self.follow(live, viewer, from_version, request.locale, generation, catch_up_page, caller=caller)
        return EventStream(_visible(stream), ended)

    async def _catch_up_turn(self) -> None:
        """Hands the event loop back between two slices of a catch-up, the catch-ups of
        the process one after the other (the lock is fair): twenty at once, each sent a
        long game's past, leave a move the wait of one slice between its steps, not twenty."""
        async with self._catching_up:
            await asyncio.sleep(0)

    async def follow(
        self,
        live: LiveGame,
        viewer: Viewer,
        from_version: int,
        locale: str | None = None,
        generation: int | None = None,
        catch_up_page: int = 0,
        *,
        caller: str | Caller = "",
    ) -> AsyncGenerator[tuple[game_pb2.Event, game_pb2.Event | None]]:
        """Every event from `from_version` on, then live ones, until the game is over:
        each as stored and as `viewer` may see it (None: not at all), described in
        `locale` (None: not described). A seat's stream ends when its token (or the
        stream ticket it came from) is no longer the seat's: when the admin rotated it
        (at the next event once this process knows), after the event that says its
        player left the seat, or when another player joined it. `generation`: the
        seat's token generation its caller was checked at (default: the game's now).
        `catch_up_page`: ends after so many events of the past if more remain (0: never).
        A long catch-up is redacted in the heavy workers for `caller` (or its token's: catch_up.py)."""
        if live.status.finished and from_version > live.version:
            return
        seat = viewer.seat if viewer.role is Role.SEAT else None
        if generation is None:
            generation = generation_of(live, viewer)
        if from_version > live.version + 1:
            raise _past_the_end(live, from_version)
        self._admit(live, viewer)
        game_id = live.game_id
        counted = viewer.role is Role.SPECTATOR
        self._spectators[game_id] += counted
        if seat is not None:
            self._seats[game_id, seat] += 1
        client = self._client(viewer)
        if client:
            self._clients[client] += 1
        held_since = live.version  # the token was the seat's at this version
        past = live.version  # events up to here are read again (recalled now); later ones come live
        caught_up = 0  # events of the past sent
        audience = None if locale is None else LiveAudience(live, locale, hides_players(live, viewer))
        self._metrics.subscriptions.inc()
        since_ms = time.time() * 1000  # events recorded from now on are live ones: their lag is measured
        try:
            with store_errors():
                async for stored, ready in self._events(live, viewer, from_version, locale, caller):
                    if seat is not None and live.seat_generation(seat) != generation:
                        raise unauthenticated("This seat's token was replaced: follow the game with the new one.")
                    if stored.version <= past and stored.version % CATCH_UP_SLICE == 0:
                        await self._catch_up_turn()  # a long catch-up hands the loop back, as a bot chain does
                    with tracing.delivery(live.traced_move, stored.version, seat=viewer.seat):
                        event = parse_event(stored)
                        if event.HasField("table") and event.version > live.version:
                            await self._games.refresh(live)  # who sits where: the names the words use
                        self._metrics.observe_delivery(event.recorded_at.ToMilliseconds(), since_ms)
                        redacted = ready.event if ready else _redacted(live, event, viewer, audience, past)
                        yield event, redacted
                    if event.game_over:
                        return
                    if redacted is not None and event.version < past and catch_up_page:
                        caught_up += 1
                        if caught_up == catch_up_page:
                            return  # a page of the past: its client comes back for the next
                    if seat is not None and event.version > held_since and _left(event, seat):
                        raise unauthenticated("This seat was left: its token is not valid any more.")
        except VersionsLost as lost:
            raise await self._lost(live, lost) from lost
        finally:
            self._metrics.subscriptions.dec()
            self._spectators[game_id] -= counted
            if not self._spectators[game_id]:
                del self._spectators[game_id]
            if seat is not None:
                self._seats[game_id, seat] -= 1
                if not self._seats[game_id, seat]:
                    del self._seats[game_id, seat]
            if client:
                self._clients[client] -= 1
                if not self._clients[client]:
                    del self._clients[client]

    def _events(
        self, live: LiveGame, viewer: Viewer, from_version: int, locale: str | None, caller: str | Caller
    ) -> AsyncIterator[tuple[StoredEvent, catch_up.Ready | None]]:
        """The game's stored events from `from_version` on, then live ones; a long
        catch-up's past each with what a heavy worker made of it (catch_up.py)."""
        events = self._games.store.subscribe(live.game_id, from_version)
        return catch_up.prepared(self._heavy, live, viewer, events, from_version, locale, caller)

    async def _lost(self, live: LiveGame, lost: VersionsLost) -> ServiceError:
        """The store went back behind what this stream had sent: record the loss (the
        game is rebuilt from the store) and tell the follower what it lost."""
        await self._games.checks.store_behind(live, lost.seen)
        loss = live.losses[-1] if live.losses else None
        if loss is not None and loss.last >= lost.seen:
            return versions_lost(loss.first, loss.last, live.version, "from_version")
        return versions_lost(lost.version + 1, lost.seen, live.version, "from_version")

    async def replay(
        self, request: game_service_pb2.ReplayGameRequest, token: str
    ) -> game_service_pb2.ReplayGameResponse:
        live, viewer = await self._open(request.game_id, token)
        at = request.at_version if request.HasField("at_version") else live.version
        if at > live.version:
            raise invalid_argument("at_version", f"The game has {live.version} events; at_version cannot be {at}.")
        repository = self._games.repository
        state = live.state if at == live.version else await repository.state_at(live, at, self._heavy, token)
        status = live.engine.status(state)
        audience = audience_for(live, viewer, request.locale)
        # A past version, as the viewer may look at it again now (the memory rule).
        seen, legal = shown(live, state, viewer, audience, live.state)
        told = outcome(live, status, state, audience)
        if audience.anonymous:
            told.ClearField("summary")
        return game_service_pb2.ReplayGameResponse(
            at_version=at,
            version=live.version,
            status=status_code(status, live.table.started_at(at)),
            to_act=status.to_act,
            outcome=told,
            view=seen,
            legal_commands=legal,
        )


def redacted_page(
    engine: AnyEngine, stored: Sequence[StoredEvent], viewer: Viewer, audience: Audience, now: Any
) -> list[game_pb2.Event]:
    """A page of stored events as `viewer` may recall them `now` (the game's state), for `audience`."""
    page = [redact(engine, parse_event(item), viewer, audience, now) for item in stored]
    return [event for event in page if event is not None]


def page_in_worker(
    kind: str,
    stored: Sequence[StoredEvent],
    viewer: Viewer,
    seats: Sequence[game_pb2.Seat],
    locale: str,
    anonymous: bool,
    now: Any,
) -> bytes:
    """A worker's job: `redacted_page`, as a ListEventsResponse's events, encoded."""
    events = redacted_page(GAMES[kind].engine, stored, viewer, Audience.of(seats, locale, anonymous), now)
    return game_service_pb2.ListEventsResponse(events=events).SerializeToString()


def _redacted(
    live: LiveGame, event: game_pb2.Event, viewer: Viewer, audience: LiveAudience | None, past: int
) -> game_pb2.Event | None:
    """`event` as `viewer` may see it: up to `past`, read again (as recalled now); after
    it, as it happens."""
    now = live.state if event.version <= past else None
    return redact(live.engine, event, viewer, audience.now() if audience else None, now)


async def _visible(
    events: AsyncGenerator[tuple[game_pb2.Event, game_pb2.Event | None]],
) -> AsyncIterator[game_pb2.Event]:
    try:
        async for _, redacted in events:
            if redacted is not None:
                yield redacted
    finally:
        await events.aclose()  # at once, not when collected: its follower's place is freed


def _past_the_end(live: LiveGame, from_version: int) -> ServiceError:
    """A follower asking past the game's end: in a game that lost versions in a failover,
    versions it may have been given that the store lost; in any other, versions that
    never were: OUT_OF_RANGE."""
    if live.losses:
        return versions_lost(live.version + 1, from_version - 1, live.version, "from_version")
    description = f"The game has {live.version} events: from_version is at most {live.version + 1}."
    violation = error_details_pb2.BadRequest.FieldViolation(field="from_version", description=description)
    return ServiceError(Code.OUT_OF_RANGE, description, [error_details_pb2.BadRequest(field_violations=[violation])])


def generation_of(live: LiveGame, viewer: Viewer) -> int:
    """The generation of the viewer's seat's tokens now (0 but for a seat)."""
    return live.seat_generation(viewer.seat) if viewer.role is Role.SEAT and viewer.seat is not None else 0


def _left(event: game_pb2.Event, seat: int) -> bool:
    """Whether `event` says the seat's player left it."""
    return event.table.WhichOneof("change") == "left" and event.table.left.seat == seat
