"""The listing index of the Redis store: which games exist, by kind and status,
newest first, for ListGames, without scanning the keyspace.

The index lives in its own cluster slot (`{index}`), so it cannot change in the same
Lua script as a game. Yet a game must be written whether or not the index's shard can
be written at that moment: one shard's outage (or a shard whose replicas cannot
confirm writes) must not stop games on every other shard. So filing is best effort,
and repaired:

1. A write that files a game anew (its creation, or an append that changes its status)
   also records, in the same script, the game in its slot's *filing set*
   (`<prefix>:filing:{<slot tag>}`, in the game's own slot), scored by Redis's clock.
2. After the write, the writer files the game in the index (`sync`: its kind and status
   as of its version) and takes it out of the filing set, unless it changed again since.
3. If that fails (the index's shard is down), the writer remembers the game, and its
   reconciler files it as soon as the index can be written again. A writer that died
   in between leaves the game in its filing set: every process's reconciler sweeps the
   filing sets of all slots, a slice at every tick, and files what has waited longer
   than a grace period.

A filing files the game only as of a version at least as new as the filed one, so
filings arriving in any order converge on the latest status. A game's place in the
listing is its filing order, given at its first filing (a game created while the index
was down is listed as of when it was filed). A game created `listed` is filed in a
second family of sets as well (`listed:all`, `listed:kind:<kind>`...), with the same
order: a listing for everyone reads those (`listed` never changes after creation).

What readers see meanwhile: a game is listed only when its labels match the filter
(they are read from the game itself), so a stale entry never shows a wrong status; a
game not yet filed may be missing from a page until it is.

Retention rides on the same filings: each files the game's next review time in the
`due` sorted set, which the service's reviews read (service/app/keeping/retention.py); a review
that keeps a game schedules it anew. A game deleted, or dropped by Redis when its keys
expired, leaves the listing and the schedule by a filing of nothing (`sync(game_id,
None)`; `settle` finds it gone); a filing arriving after that files it again, and the
next review finds it gone and takes it out: the index converges on the games that exist.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from redis.crc import REDIS_CLUSTER_HASH_SLOTS

from service.store.base import GameInfo, InvalidCursor, StoreUnavailable
from service.store.redis_client import RedisConnection
from service.store.redis_keys import Keys
from service.store.redis_lua import DUE_GAMES, FILING, SCHEDULE, SYNC, UNFILE

log = logging.getLogger(__name__)

SWEEP_SLOTS = 1024  # filing sets looked at per reconciler tick (a cluster has 16,384)
SWEEP_LIMIT = 100  # games taken from one filing set per look


@dataclass(frozen=True, slots=True)
class Labels:
    """What the index files a game by, as read from the game."""

    kind: str
    status: str
    version: int
    listed: bool
    review_at_ms: int = 0  # when the game is due for review (its `due` score; 0: never)


class GameIndex:
    def __init__(self, redis: RedisConnection, keys: Keys, *, grace: float = 10.0, interval: float = 5.0) -> None:
        self._redis = redis
        self._keys = keys
        self.grace = grace
        self.interval = interval
        self._unfiled: set[str] = set()  # games this process could not file: filed at the next tick
        self._next_slot = 0

    def filing_key(self, game_id: str) -> str:
        """The filing set of the game's slot."""
        return self._keys.filing(self._redis.slot(self._keys.meta(game_id)))

    async def file(self, game_id: str, labels: Labels, score: int | None) -> None:
        """Files a game just written (its change scored `score` in its filing set).
        The write stands even if this fails: the reconciler files it later."""
        try:
            await self.sync(game_id, labels)
            if score is not None:
                await self._redis.run(UNFILE, [self.filing_key(game_id)], [game_id, score])
        except StoreUnavailable as error:
            self._later(game_id, error)

    async def unlist(self, game_id: str) -> None:
        """Takes a game that is gone out of the listing and the review schedule, or has
        the reconciler do it once the index can be written."""
        try:
            await self.sync(game_id, None)
        except StoreUnavailable as error:
            self._later(game_id, error)

    def _later(self, game_id: str, error: StoreUnavailable) -> None:
        if not self._unfiled:
            log.warning("games are written but not yet filed (filed once the index can be written): %s", error)
        self._unfiled.add(game_id)

    async def sync(self, game_id: str, labels: Labels | None) -> None:
        """Files the game by `labels` (None: it no longer exists: it leaves the listing)."""
        keys = self._keys
        filed = (
            ("1", labels.kind, labels.status, labels.version, "1" if labels.listed else "0", labels.review_at_ms)
            if labels
            else ("0", "", "", 0, "0", 0)
        )
        await self._redis.run(SYNC, [keys.filed, keys.sequence], [keys.index_prefix, game_id, *filed], durable=True)

    async def settle(self, game_id: str) -> None:
        """Files a game as it now stands, and takes it out of its filing set."""
        filing = self.filing_key(game_id)
        score, kind, status, version, listed, review_at = await self._redis.run(
            FILING, [self._keys.meta(game_id), filing], [game_id]
        )
        labels = Labels(kind.decode(), status.decode(), int(version), listed == b"1", int(review_at)) if kind else None
        await self.sync(game_id, labels)
        if score is not None:
            await self._redis.run(UNFILE, [filing], [game_id, score])
        self._unfiled.discard(game_id)

    async def settle_due(self) -> int:
        """Files the games this process could not file, and those of a slice of the
        filing sets that have waited longer than the grace period; returns how many."""
        settled = 0
        for game_id in list(self._unfiled):
            await self.settle(game_id)
            settled += 1
        slots = REDIS_CLUSTER_HASH_SLOTS if self._redis.is_cluster else 1
        first, self._next_slot = self._next_slot, (self._next_slot + SWEEP_SLOTS) % slots
        looked = [first + i for i in range(min(SWEEP_SLOTS, slots))]
        seconds, micros = await self._redis.call("TIME")  # Redis's clock: every process agrees on it
        before = int(seconds) * 1000 + int(micros) // 1000 - int(self.grace * 1000)
        due = await self._redis.read_many(
            [
                ("ZRANGEBYSCORE", self._keys.filing(slot % slots), "-inf", before, "LIMIT", 0, SWEEP_LIMIT)
                for slot in looked
            ]
        )
        for members in due:
            for member in members:
                await self.settle(member.decode())
                settled += 1
        return settled

    async def sweep(self) -> int:
        """Settles everything due in every filing set (a whole round of ticks)."""
        total = 0
        rounds = REDIS_CLUSTER_HASH_SLOTS // SWEEP_SLOTS if self._redis.is_cluster else 1
        for _ in range(rounds):
            total += await self.settle_due()
        return total

    async def reconcile_until(self, stop: asyncio.Event) -> None:
        """The reconciler: settles what is due every `interval` seconds until `stop`."""
        while not stop.is_set():
            try:
                await self.settle_due()
            except StoreUnavailable as error:
                log.debug("reconciler: %s", error)  # Redis is down: readiness says so already
            except Exception:
                log.exception("reconciler: settling the index failed; trying again later")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.interval)

    async def schedule(self, game_id: str, review_at_ms: int) -> None:
        """Reviews the game at `review_at_ms` (0: never)."""
        await self._redis.run(SCHEDULE, [self._keys.due], [game_id, review_at_ms])

    async def due(self, now_ms: int, limit: int) -> list[str]:
        """The games whose review time has come, the earliest first."""
        found = await self._redis.run(DUE_GAMES, [self._keys.due], [now_ms, limit])
        return [member.decode() for member in found]

    async def page(
        self, kind: str, status: str, limit: int, cursor: str, *, listed_only: bool = False
    ) -> tuple[list[str], str]:
        """Game ids, newest first, and the cursor of the next page ("" if none)."""
        if cursor and not (cursor.isascii() and cursor.isdigit()):
            raise InvalidCursor(cursor)
        upper = f"({int(cursor)}" if cursor else "+inf"
        index_set = self._keys.index_set(kind, status, listed_only=listed_only)
        # The filing counter, read in the same round trip: a cursor is a position below
        # it, anything else is not one this store gave.
        newest, found = await self._redis.read_many(
            [
                ("GET", self._keys.sequence),
                ("ZREVRANGEBYSCORE", index_set, upper, "-inf", "WITHSCORES", "LIMIT", 0, limit + 1),
            ]
        )
        if cursor and int(cursor) > int(newest or 0):
            raise InvalidCursor(cursor)
        pairs = [(member.decode(), int(float(score))) for member, score in _pairs(found)]
        next_cursor = str(pairs[limit - 1][1]) if len(pairs) > limit else ""
        return [game_id for game_id, _ in pairs[:limit]], next_cursor

    @staticmethod
    def matching(infos: list[GameInfo | None], kind: str, status: str, listed_only: bool) -> list[GameInfo]:
        """The games whose own labels match the filter (the index may lag behind them)."""
        return [
            info
            for info in infos
            if info is not None
            and (not kind or info.kind == kind)
            and (not status or info.status == status)
            and (info.listed or not listed_only)
        ]


def _pairs(reply: object) -> list[tuple[bytes, float]]:
    """ZRANGE ... WITHSCORES as (member, score) pairs, whichever way redis-py parsed it."""
    assert isinstance(reply, list)
    if reply and isinstance(reply[0], list | tuple):
        return [(bytes(member), float(score)) for member, score in reply]
    return [(bytes(reply[i]), float(reply[i + 1])) for i in range(0, len(reply), 2)]
