"""The listing index of the Redis store: which games exist, by kind and status,
newest first, for ListGames, without scanning the keyspace.

The index lives in its own cluster slot, so it cannot change in the same Lua script as
a game. It is kept by intents, so that it always converges and never loses a game:

1. Before a write that files a game anew (its creation, or an append that changes its
   status), the writer records an *intent* in the index slot: a fresh token from a
   counter, and the pending entry "<token>:<game_id>" scored by Redis's clock.
2. The game's own script carries the token; it refuses a status change without one.
3. After the write, the writer *syncs*: files the game under its kind and status as of
   its version, and drops the pending entry.

A writer that dies between 1 and 3 leaves a pending entry. Every process runs a
reconciler that takes the intents older than a grace period and *settles* them: on
the game's side, it fences the token (if that write has not landed, it never will:
the scripts refuse every token up to a fenced one), reads the game's labels as they
now stand, then syncs them. A sync files the game only as of a version at least as new
as the filed one, so syncs arriving in any order converge on the latest status.

What readers see meanwhile: a game is listed only when its labels match the filter
(they are read from the game itself), so a stale entry never shows a wrong status; a
game whose intent is still pending may be missing from a page until it is settled.

Retention rides on the same syncs: each files the game's next review time in the `due`
sorted set, which the service's reviews read (service/app/retention.py). A game deleted,
or dropped by Redis when its keys expired, is unlisted from every set (UNLIST); a sync
arriving after that files it again, and the next review finds it gone and unlists it:
the index converges on the games that exist.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from service.store.base import GameInfo, InvalidCursor, StoreUnavailable
from service.store.redis_client import RedisConnection
from service.store.redis_keys import Keys
from service.store.redis_lua import DUE_GAMES, DUE_INTENTS, FENCE, INTENT, SCHEDULE, SYNC, UNLIST

log = logging.getLogger(__name__)

# How long the fence of a game that does not exist stays (its only key): far longer
# than any writer could still be on its way with the token it refuses.
FENCE_KEPT_MS = 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class Labels:
    """What the index files a game by, as read from the game."""

    kind: str
    status: str
    version: int
    seq: int
    review_at_ms: int = 0  # when the game is due for review (its `due` score; 0: never)


class GameIndex:
    def __init__(self, redis: RedisConnection, keys: Keys, *, grace: float = 10.0, interval: float = 5.0) -> None:
        self._redis = redis
        self._keys = keys
        self.grace = grace
        self.interval = interval

    async def intent(self, game_id: str) -> int:
        """Records that `game_id` is about to be filed anew; returns the token its
        write must carry."""
        keys = self._keys
        return int(await self._redis.run(INTENT, [keys.sequence, keys.pending], [game_id], durable=True))

    async def sync(self, game_id: str, token: int, labels: Labels | None) -> None:
        """Files the game by `labels` (None: it does not exist) and drops the intent."""
        keys = self._keys
        filed = (
            ("1", labels.kind, labels.status, labels.version, labels.seq, labels.review_at_ms)
            if labels
            else ("0", "", "", 0, 0, 0)
        )
        await self._redis.run(
            SYNC, [keys.filed, keys.pending], [keys.index_prefix, game_id, f"{token}:{game_id}", *filed]
        )

    async def settle(self, game_id: str, token: int) -> None:
        """Settles an intent whose write may or may not have landed (see above)."""
        reply = await self._redis.run(FENCE, [self._keys.meta(game_id)], [token, FENCE_KEPT_MS], durable=True)
        labels = None
        if reply[0] == b"ok":
            labels = Labels(reply[1].decode(), reply[2].decode(), int(reply[3]), int(reply[4]), int(reply[5]))
        await self.sync(game_id, token, labels)

    async def settle_due(self, limit: int = 100) -> int:
        """Settles the intents older than the grace period; returns how many."""
        due = await self._redis.run(DUE_INTENTS, [self._keys.pending], [int(self.grace * 1000), limit])
        for member in due:
            token, _, game_id = member.decode().partition(":")
            await self.settle(game_id, int(token))
        return len(due)

    async def reconcile_until(self, stop: asyncio.Event) -> None:
        """The reconciler: settles stale intents every `interval` seconds until `stop`."""
        while not stop.is_set():
            try:
                while await self.settle_due() > 0:
                    pass
            except StoreUnavailable as error:
                log.debug("reconciler: %s", error)  # Redis is down: readiness says so already
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.interval)

    async def unlist(self, game_id: str) -> None:
        """Removes a game from every listing and from the review schedule."""
        await self._redis.run(UNLIST, [self._keys.filed], [self._keys.index_prefix, game_id])

    async def schedule(self, game_id: str, review_at_ms: int) -> None:
        """Reviews the game at `review_at_ms` (0: never)."""
        await self._redis.run(SCHEDULE, [self._keys.due], [game_id, review_at_ms])

    async def due(self, now_ms: int, limit: int) -> list[str]:
        """The games whose review time has come, the earliest first."""
        found = await self._redis.run(DUE_GAMES, [self._keys.due], [now_ms, limit])
        return [member.decode() for member in found]

    async def page(self, kind: str, status: str, limit: int, cursor: str) -> tuple[list[str], str]:
        """Game ids, newest first, and the cursor of the next page ("" if none)."""
        if cursor and not (cursor.isascii() and cursor.isdigit()):
            raise InvalidCursor(cursor)
        upper = f"({int(cursor)}" if cursor else "+inf"
        # The creation counter, read in the same round trip: a cursor is a position
        # below it, anything else is not one this store gave.
        games = self._keys.index_set(kind, status)
        newest, found = await self._redis.read_many(
            [
                ("GET", self._keys.sequence),
                ("ZREVRANGEBYSCORE", games, upper, "-inf", "WITHSCORES", "LIMIT", 0, limit + 1),
            ]
        )
        if cursor and int(cursor) > int(newest or 0):
            raise InvalidCursor(cursor)
        pairs = [(member.decode(), int(float(score))) for member, score in _pairs(found)]
        next_cursor = str(pairs[limit - 1][1]) if len(pairs) > limit else ""
        return [game_id for game_id, _ in pairs[:limit]], next_cursor

    @staticmethod
    def matching(infos: list[GameInfo | None], kind: str, status: str) -> list[GameInfo]:
        """The games whose own labels match the filter (the index may lag behind them)."""
        return [
            info
            for info in infos
            if info is not None and (not kind or info.kind == kind) and (not status or info.status == status)
        ]


def _pairs(reply: object) -> list[tuple[bytes, float]]:
    """ZRANGE ... WITHSCORES as (member, score) pairs, whichever way redis-py parsed it."""
    assert isinstance(reply, list)
    if reply and isinstance(reply[0], list | tuple):
        return [(bytes(member), float(score)) for member, score in reply]
    return [(bytes(reply[i]), float(reply[i + 1])) for i in range(0, len(reply), 2)]
