"""A long catch-up beside the move loop: a follower (StreamEvents, Play, server-sent
events, WebSocket, Connect) that starts more than the settings' `catch_up_events`
behind the game has its past redacted and described for it in the heavy reads workers
(heavy_reads.py), a chunk of `catch_up_chunk` events at a time, each chunk a heavy read
of its caller's: its chunks wait for their turn among its caller's heavy reads (a
caller's followers are capped: history.py) and are refused (RESOURCE_EXHAUSTED) only
past the process's budget. The loop only reads the events from the store and hands the
bytes over. The chunks are cut from the follower's
own subscription as the store gives it, and the events after the past come through the
same subscription: none is missed nor sent twice where the catch-up meets the live
events, and they keep their order."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from ludotheque.v1 import game_pb2

from engines.contract import Viewer
from engines.registry import GAMES
from service.app.model.heavy_reads import Caller, HeavyReads
from service.app.model.live_game import LiveGame
from service.app.model.stored import parse_event
from service.app.views.descriptions import Audience
from service.app.views.views import hides_players, redact
from service.store.base import StoredEvent

CATCH_UP = "CatchUp"  # a long catch-up's chunks, as heavy reads (their metrics' `read`)


@dataclass(frozen=True, slots=True)
class Ready:
    """An event of a long catch-up as a worker made it for its follower (None: not shown)."""

    event: game_pb2.Event | None


def is_long(heavy: HeavyReads, live: LiveGame, from_version: int) -> bool:
    """Whether a follower from `from_version` has so much of the past to be sent that it
    is prepared in the heavy workers."""
    return live.version - from_version + 1 > heavy.settings.catch_up_events


async def prepared(
    heavy: HeavyReads,
    live: LiveGame,
    viewer: Viewer,
    events: AsyncIterator[StoredEvent],
    from_version: int,
    locale: str | None,
    caller: str | Caller,
) -> AsyncIterator[tuple[StoredEvent, Ready | None]]:
    """The subscription's `events` (from `from_version`), each with what a worker made of
    it for `viewer` in `locale` (None: to redact on the loop). The past of a long
    catch-up (up to the game's version now) goes to the workers a chunk at a time, as
    the store gives it, for `caller` (or its token's); the events after it come as they are."""
    past = live.version if is_long(heavy, live, from_version) else 0
    chunk: list[StoredEvent] = []
    async for stored in events:
        if stored.version > past:
            yield stored, None
            continue
        chunk.append(stored)
        if len(chunk) < heavy.settings.catch_up_chunk and stored.version < past:
            continue  # the next event of the past is at hand (read from the store): no wait
        seats, anonymous = list(live.table.seats), hides_players(live, viewer)
        job = (live.engine.kind, chunk, viewer, seats, locale, anonymous, live.state)
        shown = await heavy.run(CATCH_UP, caller, catch_up_in_worker, *job, queue=True)
        for item, data in zip(chunk, shown, strict=True):
            yield item, Ready(None if data is None else game_pb2.Event.FromString(data))
        chunk = []


def catch_up_in_worker(
    kind: str,
    stored: Sequence[StoredEvent],
    viewer: Viewer,
    seats: Sequence[game_pb2.Seat],
    locale: str | None,
    anonymous: bool,
    now: Any,
) -> list[bytes | None]:
    """A worker's job: a chunk of a catch-up's events as `viewer` may recall them `now`
    (the game's state), described in `locale` (None: not described), each encoded
    (None: not shown)."""
    engine = GAMES[kind].engine
    audience = None if locale is None else Audience.of(seats, locale, anonymous)
    shown = (redact(engine, parse_event(item), viewer, audience, now) for item in stored)
    return [None if event is None else event.SerializeToString() for event in shown]
