"""The production event store: Redis Streams, on a single Redis or a Redis Cluster.

Each game is a stream of events with entry IDs "<version>-0", a hash of metadata and a
hash of the command ids applied (keys in redis_keys.py, all in the game's hash slot).
Creating a game and appending to it are single Lua scripts (redis_lua.py): the
expected-version check, the XADDs, the command id and the new version happen all
together or not at all. Reads are XRANGE, in a script that also tells a missing game.
ListGames reads a separate index that converges even when a writer dies half way
(redis_index.py). Live subscriptions share one reader task per process (redis_live.py).

Selected by `--store redis://host:port/db` or `--store redis+cluster://host:port`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from service.store.base import (
    SHUTTING_DOWN,
    Admission,
    AppendResult,
    CommandIdReused,
    CountersChanged,
    GameExists,
    GameInfo,
    GameNotFound,
    GamePage,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
)
from service.store.redis_client import RedisConnection
from service.store.redis_coordination import RedisCoordination
from service.store.redis_index import GameIndex, Labels
from service.store.redis_keys import Keys
from service.store.redis_live import LiveReader
from service.store.redis_lua import ADMIT, APPEND, BUMP, CREATE, FIND_COMMAND, MEMBERS, READ

log = logging.getLogger(__name__)

# A write refused because a reconciler settled its intent first is tried again with a
# new one; that takes a writer stalled for longer than the grace period, so more than
# a few attempts in a row means something else is wrong.
WRITE_ATTEMPTS = 4
COUNTER = b"counter:"  # the meta fields of the game's counters (EventStore.bump)
READ_PAGE = 1000  # events per XRANGE while a subscriber catches up


class RedisStore:
    def __init__(
        self,
        redis: RedisConnection,
        *,
        prefix: str = "ludo",
        subscriber_queue: int = 1024,
        reconcile_grace: float = 10.0,
        reconcile_interval: float = 5.0,
    ) -> None:
        self.redis = redis
        self.keys = Keys(prefix)
        self.index = GameIndex(redis, self.keys, grace=reconcile_grace, interval=reconcile_interval)
        self._live = LiveReader(redis, self.keys, queue_size=subscriber_queue)
        self.coordination = RedisCoordination(redis, self.keys, self._check_open)
        self._reconciler: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()

    @classmethod
    def from_url(cls, url: str, *, wait_replicas: int = 0, wait_timeout: float = 1.0, **options: Any) -> RedisStore:
        return cls(RedisConnection.from_url(url, wait_replicas=wait_replicas, wait_timeout=wait_timeout), **options)

    def _check_open(self) -> None:
        if self._closing.is_set():
            raise StoreUnavailable("the Redis store is closed")
        if self._reconciler is None and self.index.interval > 0:
            # In no request's context: it works for every request, not for the one that started it.
            self._reconciler = asyncio.create_task(
                self.index.reconcile_until(self._closing), name="redis-index-reconciler", context=contextvars.Context()
            )

    # --- writing ---------------------------------------------------------------------

    async def create(
        self,
        game_id: str,
        kind: str,
        status: str,
        record: bytes,
        summary: bytes,
        events: Sequence[bytes],
        now_ms: int,
        *,
        listed: bool = True,
    ) -> None:
        self._check_open()
        keys = self.keys
        for _ in range(WRITE_ATTEMPTS):
            token = await self.index.intent(game_id)
            reply = await self.redis.run(
                CREATE,
                [keys.meta(game_id), keys.events(game_id)],
                [kind, status, record, summary, now_ms, token, "1" if listed else "0", *events],
                durable=True,
            )
            if reply[0] == b"ok":
                await self._file(game_id, token, Labels(kind, status, int(reply[1]), token, listed))
                return
            await self._drop_intent(game_id, token)
            if reply[0] == b"exists":
                raise GameExists(game_id)
        raise StoreUnavailable(f"could not create game {game_id!r}: its index intents kept being settled")

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        command_id: str,
        fingerprint: bytes,
        status: str,
        summary: bytes,
        now_ms: int,
        *,
        counters_revision: int | None = None,
    ) -> AppendResult:
        self._check_open()
        keys = self.keys
        token = 0  # an intent is needed only when the status changes (see redis_index.py)
        revision = "" if counters_revision is None else counters_revision
        for _ in range(WRITE_ATTEMPTS):
            reply = await self.redis.run(
                APPEND,
                [keys.meta(game_id), keys.events(game_id), keys.commands(game_id)],
                [
                    expected_version,
                    command_id,
                    fingerprint.hex(),
                    status,
                    summary,
                    now_ms,
                    token or "",
                    revision,
                    *events,
                ],
                durable=True,
            )
            outcome = reply[0]
            if outcome in (b"ok", b"changed"):
                last = int(reply[1])
                if outcome == b"changed":
                    labels = Labels(reply[2].decode(), status, last, int(reply[3]), reply[4] == b"1")
                    await self._file(game_id, token, labels)
                return AppendResult(expected_version + 1, last)
            if token:
                await self._drop_intent(game_id, token)  # this write did not use it
                token = 0
            if outcome == b"missing":
                raise GameNotFound(game_id)
            if outcome == b"bumped":
                raise CountersChanged(game_id)
            if outcome == b"known":
                return await self._applied(game_id, command_id, fingerprint, reply[1])
            if outcome == b"conflict":
                raise VersionConflict(game_id, expected_version, int(reply[1]))
            token = await self.index.intent(game_id)  # outcome "intent": the status changes
        raise StoreUnavailable(f"could not append to game {game_id!r}: its index intents kept being settled")

    async def _file(self, game_id: str, token: int, labels: Labels) -> None:
        """Files a written game in the index. The write stands even if this fails: the
        reconciler files it later from the pending intent."""
        try:
            await self.index.sync(game_id, token, labels)
        except StoreUnavailable as error:
            log.warning("game %s is written but not yet listed (the reconciler will list it): %s", game_id, error)

    async def _drop_intent(self, game_id: str, token: int) -> None:
        """An intent whose write was refused: nothing to file."""
        with contextlib.suppress(StoreUnavailable):  # else the reconciler drops it
            await self.index.sync(game_id, token, None)

    async def _applied(self, game_id: str, command_id: str, fingerprint: bytes, record: bytes) -> AppendResult:
        first, last, known_fingerprint = record.decode().split(" ", 2)
        if known_fingerprint != fingerprint.hex():
            raise CommandIdReused(game_id, command_id)
        # The first try may have failed waiting for replicas: confirm before answering.
        await self.redis.touch(self.keys.meta(game_id), "replays")
        return AppendResult(int(first), int(last), replayed=True)

    # --- reading ---------------------------------------------------------------------

    async def find_command(self, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
        self._check_open()
        reply = await self.redis.run(FIND_COMMAND, [self.keys.meta(game_id), self.keys.commands(game_id)], [command_id])
        if reply[0] == b"missing":
            raise GameNotFound(game_id)
        if reply[1] is None:
            return None
        return await self._applied(game_id, command_id, fingerprint, reply[1])

    async def info(self, game_id: str) -> GameInfo:
        self._check_open()
        info = _game_info(game_id, await self.redis.call("HGETALL", self.keys.meta(game_id)))
        if info is None:
            raise GameNotFound(game_id)
        return info

    async def read(
        self, game_id: str, from_version: int, to_version: int | None = None, *, counters_revision: int | None = None
    ) -> list[StoredEvent]:
        self._check_open()
        start = f"{max(from_version, 1)}-0"
        stop = "+" if to_version is None else f"{to_version}-0"
        revision = "" if counters_revision is None else counters_revision
        reply = await self.redis.run(
            READ, [self.keys.meta(game_id), self.keys.events(game_id)], [start, stop, revision]
        )
        if reply[0] == b"missing":
            raise GameNotFound(game_id)
        if reply[0] == b"bumped":
            raise CountersChanged(game_id)
        # Each entry is [id, ["d", event]]: the scripts write one field, "d".
        return [StoredEvent(int(entry_id.split(b"-", 1)[0]), fields[1]) for entry_id, fields in reply[1]]

    async def _version(self, game_id: str) -> int:
        version = await self.redis.call("HGET", self.keys.meta(game_id), "version")
        if version is None:
            raise GameNotFound(game_id)
        return int(version)

    async def bump(self, game_id: str, name: str) -> int:
        self._check_open()
        reply = await self.redis.run(BUMP, [self.keys.meta(game_id)], [name], durable=True)
        if reply[0] == b"missing":
            raise GameNotFound(game_id)
        return int(reply[1])

    async def list_games(
        self, kind: str, status: str, limit: int, cursor: str, *, listed_only: bool = False
    ) -> GamePage:
        self._check_open()
        game_ids, next_cursor = await self.index.page(kind, status, limit, cursor, listed_only=listed_only)
        metas = await self.redis.read_many([("HGETALL", self.keys.meta(game_id)) for game_id in game_ids])
        infos = [_game_info(game_id, meta) for game_id, meta in zip(game_ids, metas, strict=True)]
        return GamePage(self.index.matching(infos, kind, status, listed_only), next_cursor)

    # --- bounded sets (admit) ----------------------------------------------------------

    async def admit(self, key: str, member: str, limit: int, now_ms: int, ttl_ms: int | None = None) -> Admission:
        self._check_open()
        ttl = "" if ttl_ms is None else ttl_ms
        reply = await self.redis.run(ADMIT, [self.keys.limit(key)], [member, limit, now_ms, ttl], durable=True)
        if reply[0] == 1:
            return Admission(True)
        first = reply[1].decode()
        return Admission(False, None if first == "inf" else max(int(float(first)) - now_ms, 0))

    async def release(self, key: str, member: str) -> None:
        self._check_open()
        await self.redis.call("ZREM", self.keys.limit(key), member)

    async def members(self, key: str, now_ms: int) -> list[str]:
        self._check_open()
        found = await self.redis.run(MEMBERS, [self.keys.limit(key)], [now_ms])
        return sorted(member.decode() for member in found)

    async def subscribe(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        self._check_open()
        version = await self._version(game_id)
        next_version = max(from_version, 1)
        subscriber, through = self._live.add(game_id, version, next_version)
        try:
            # Catch up from the store to `through`; the queue holds what comes after.
            while next_version <= through:
                page = await self.read(game_id, next_version, min(through, next_version + READ_PAGE - 1))
                for event in page:
                    yield event
                next_version = page[-1].version + 1 if page else through + 1
            while True:  # the reader queues the later versions, each once and in order
                yield await subscriber.next()
        finally:
            self._live.remove(subscriber)

    def end_subscriptions(self) -> None:
        self._live.end_all(StoreUnavailable(SHUTTING_DOWN))

    # --- marks -----------------------------------------------------------------------

    async def mark_once(self, key: str, ttl_ms: int) -> bool:
        self._check_open()
        # One atomic command, so two processes racing for a key cannot both mark it.
        return await self.redis.call("SET", self.keys.mark(key), b"1", "NX", "PX", max(ttl_ms, 1)) is not None

    # --- the connection --------------------------------------------------------------

    async def ping(self) -> None:
        self._check_open()
        await self.redis.ping()

    async def close(self) -> None:
        self._closing.set()
        self._live.close()
        if self._reconciler is not None:
            # If redis-py loses this cancellation (Python 3.11's wait_for can), the
            # reconciler still stops at its next look at `_closing`.
            self._reconciler.cancel()
        await self.redis.close()
        if self._reconciler is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconciler
        await self._live.wait_closed()


def _game_info(game_id: str, meta: dict[bytes, bytes]) -> GameInfo | None:
    if b"kind" not in meta:
        return None  # no such game (or only the fence of a creation that never landed)
    counters = {name[len(COUNTER) :].decode(): int(value) for name, value in meta.items() if name.startswith(COUNTER)}
    return GameInfo(
        game_id=game_id,
        kind=meta[b"kind"].decode(),
        status=meta[b"status"].decode(),
        version=int(meta[b"version"]),
        created_at_ms=int(meta[b"created_at"]),
        updated_at_ms=int(meta[b"updated_at"]),
        record=meta[b"record"],
        summary=meta[b"summary"],
        listed=meta.get(b"listed") == b"1",  # games older than the flag: not listed
        counters=counters,
        counters_revision=int(meta.get(b"bumps", 0)),
    )
