"""The production event store: Redis Streams, on a single Redis or a Redis Cluster.

Each game is a stream of events with entry IDs "<version>-0", a hash of metadata and a
hash of the command ids applied (keys in redis_keys.py, all in the game's hash slot).
Creating a game and appending to it are single Lua scripts (redis_lua.py): the
expected-version check, the XADDs, the command id and the new version happen all
together or not at all. Reads are XRANGE, in a script that also tells a missing game.
ListGames reads a separate index, filed best effort and repaired, so that it converges
even when a writer dies half way or the index's shard is down (redis_index.py). Live
subscriptions share one reader task per process (redis_live.py). Snapshots of a game's
state are a sorted set beside its events. Retention (how long each game is kept, and
deleting it) is in redis_retention.py, the bounded sets of quotas and rate limits and
the marks (mark_once) in redis_sets.py.

When writes wait for replicas (WAIT), only what the replicas confirmed is shown: each
game records the last version its replicas confirmed (`confirmed`, set after each
write's WAIT succeeded), and reads, GameInfo.version and live events stop there. A
write whose WAIT failed stays on the primary, unseen; it is confirmed (a write and
WAIT of one's own: WAIT covers everything written before on that node) when someone
needs it: the retry of its command, a writer that conflicts with it, a reader asking
for versions past `confirmed`. A failover that loses it loses nothing anyone was shown.

Selected by `--store redis://host:port/db` or `--store redis+cluster://host:port`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator, Sequence
from typing import Any

from service.store.base import (
    SHUTTING_DOWN,
    AppendRequest,
    AppendResult,
    CommandIdReused,
    CountersChanged,
    GameExists,
    GameInfo,
    GameLost,
    GameNotFound,
    GamePage,
    NewGame,
    StoredEvent,
    StoredSnapshot,
    StoreHealth,
    StoreUnavailable,
    VersionConflict,
)
from service.store.redis_client import DEFAULT_TIMEOUT, RedisConnection
from service.store.redis_coordination import RedisCoordination
from service.store.redis_health import probe
from service.store.redis_index import GameIndex, Labels
from service.store.redis_keys import Keys
from service.store.redis_live import FOLLOWER_READS, LiveReader
from service.store.redis_lua import (
    APPEND,
    BUMP,
    CONFIRM,
    CREATE,
    FIND_COMMAND,
    PUT_SNAPSHOTS,
    READ,
    SNAPSHOT,
    TOUCH,
)
from service.store.redis_moves import SWEEP_SECONDS
from service.store.redis_retention import RedisRetention
from service.store.redis_sets import RedisSets

COUNTER = b"counter:"  # the meta fields of the game's counters (EventStore.bump)


class RedisStore(RedisRetention, RedisSets):
    """Every part of the store (base.EventStore): the event log and snapshots here,
    retention in redis_retention.py, the shared sets and marks in redis_sets.py,
    coordination in redis_coordination.py."""

    def __init__(
        self,
        redis: RedisConnection,
        *,
        prefix: str = "ludo",
        subscriber_queue: int = 1024,
        reconcile_grace: float = 10.0,
        reconcile_interval: float = 5.0,
        sweep_seconds: float = SWEEP_SECONDS,
        follower_reads: int = FOLLOWER_READS,  # (redis_live.py)
    ) -> None:
        self.redis = redis
        self.keys = Keys(prefix)
        self.index = GameIndex(redis, self.keys, grace=reconcile_grace, interval=reconcile_interval)
        self._live = LiveReader(redis, self.keys, subscriber_queue, sweep_seconds, follower_reads)
        self.coordination = RedisCoordination(redis, self.keys, self._check_open)
        self._reconciler: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        # '1': writes wait for replicas, and a game shows only what they confirmed.
        self._pending = "1" if redis.wait_replicas else "0"

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        wait_replicas: int = 0,
        wait_timeout: float = 1.0,
        timeout: float = DEFAULT_TIMEOUT,
        **options: Any,
    ) -> RedisStore:
        connection = RedisConnection.from_url(
            url, wait_replicas=wait_replicas, wait_timeout=wait_timeout, timeout=timeout
        )
        return cls(connection, **options)

    @property
    def waits(self) -> bool:
        """Whether writes wait for replicas (and reads show only what they confirmed)."""
        return self._pending == "1"

    def _check_open(self) -> None:
        if self._closing.is_set():
            raise StoreUnavailable("the Redis store is closed")
        if self._reconciler is None and self.index.interval > 0:
            # In no request's context: it works for every request, not for the one that started it.
            self._reconciler = asyncio.create_task(
                self.index.reconcile_until(self._closing), name="redis-index-reconciler", context=contextvars.Context()
            )

    # --- writing ---------------------------------------------------------------------

    async def create(self, game: NewGame) -> None:
        self._check_open()
        keys, game_id, keep = self.keys, game.game_id, game.keep
        listed = "1" if game.listed else "0"
        args = [game.kind, game.status, game.record, game.summary, game.now_ms, self._pending, game_id, listed]
        reply = await self.redis.run(
            CREATE,
            [keys.meta(game_id), keys.events(game_id), self.index.filing_key(game_id)],
            [*args, keep.review_at_ms, keep.expire_at_ms, *game.events],
            durable=True,
        )
        if reply[0] == b"exists":
            raise GameExists(game_id)
        version = int(reply[1])
        if self.waits:
            await self._confirmed(game_id, version)
        if reply[2] is not None:
            labels = Labels(game.kind, game.status, version, game.listed, keep.review_at_ms)
            await self.index.file(game_id, labels, int(reply[2]))

    async def append(self, request: AppendRequest) -> AppendResult:
        self._check_open()
        keys, game_id, keep = self.keys, request.game_id, request.keep
        expected_version, command_id, fingerprint = request.expected_version, request.command_id, request.fingerprint
        revision = "" if request.counters_revision is None else request.counters_revision
        args = [
            *(expected_version, command_id, fingerprint.hex(), request.status, request.summary, request.now_ms),
            *(self._pending, game_id, request.after, revision, keep.review_at_ms, keep.expire_at_ms),
        ]
        game_keys = [keys.meta(game_id), keys.events(game_id), keys.commands(game_id), self.index.filing_key(game_id)]
        reply = await self.redis.run(
            APPEND,
            [*game_keys, keys.snapshots(game_id), keys.moves(game_id)],
            [*args, *request.events],
            durable=True,
        )
        outcome = reply[0]
        if outcome in (b"ok", b"changed"):
            last = int(reply[1])
            if self.waits:
                await self._confirmed(game_id, last)
            self._live.appended(game_id, expected_version + 1, request.events)
            if outcome == b"changed":
                labels = Labels(reply[2].decode(), request.status, last, reply[4] == b"1", keep.review_at_ms)
                await self.index.file(game_id, labels, int(reply[3]))
            return AppendResult(expected_version + 1, last)
        if outcome == b"missing":
            raise await self._missing(game_id)
        if outcome == b"bumped":
            raise CountersChanged(game_id)
        if outcome == b"known":
            return await self._applied(game_id, command_id, fingerprint, reply[1])
        current, visible = int(reply[1]), int(reply[2])
        if current > visible:
            # Versions its replicas have not confirmed (a write whose WAIT failed, or a
            # writer that died before saying so) stand in the way: confirm them, or
            # the caller would never see what it conflicts with.
            current = await self.confirm(game_id)
        raise VersionConflict(game_id, expected_version, current)

    async def confirm(self, game_id: str) -> int:
        """Makes sure the replicas have everything the game's primary has, and shows it
        (StoreUnavailable when they do not confirm it in time); the version confirmed."""
        reply = await self.redis.run(TOUCH, [self.keys.meta(game_id)], [], durable=True)
        if reply[0] == b"missing":
            raise await self._missing(game_id)
        version = int(reply[1])
        await self._confirmed(game_id, version)
        return version

    async def _confirmed(self, game_id: str, version: int) -> None:
        """The replicas confirmed the game up to `version`: show it."""
        await self.redis.run(CONFIRM, [self.keys.meta(game_id), self.keys.moves(game_id)], [version])

    async def _applied(self, game_id: str, command_id: str, fingerprint: bytes, record: bytes) -> AppendResult:
        first, last, known_fingerprint = record.decode().split(" ", 2)
        if known_fingerprint != fingerprint.hex():
            raise CommandIdReused(game_id, command_id)
        if self.waits:  # the first try may have failed waiting for replicas: confirm before answering
            await self.confirm(game_id)
        return AppendResult(int(first), int(last), replayed=True)

    # --- reading ---------------------------------------------------------------------

    async def find_command(self, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
        self._check_open()
        reply = await self.redis.run(FIND_COMMAND, [self.keys.meta(game_id), self.keys.commands(game_id)], [command_id])
        if reply[0] == b"missing":
            raise await self._missing(game_id)
        if reply[1] is None:
            return None
        return await self._applied(game_id, command_id, fingerprint, reply[1])

    async def info(self, game_id: str) -> GameInfo:
        self._check_open()
        info = _game_info(game_id, await self.redis.call("HGETALL", self.keys.meta(game_id)), self.waits)
        if info is None:
            raise await self._missing(game_id)
        return info

    async def _missing(self, game_id: str) -> GameNotFound:
        """Why the game is not there: never created, deleted (or dropped once expired:
        either leaves the listing), or lost (GameLost: the listing index, in a slot of
        its own, still files it; a failover lost the game's own slot). When the index
        cannot be read, or went with the game, it cannot be told: GameNotFound."""
        with contextlib.suppress(StoreUnavailable):
            filed = await self.redis.call("HGET", self.keys.filed, game_id)
            if filed is not None:
                return GameLost(game_id, filed.decode())
        return GameNotFound(game_id)

    async def read(
        self, game_id: str, from_version: int, to_version: int | None = None, *, counters_revision: int | None = None
    ) -> list[StoredEvent]:
        self._check_open()
        first = max(from_version, 1)
        revision = "" if counters_revision is None else counters_revision
        args = [first, "+" if to_version is None else to_version, self._pending, revision]
        reply = await self._read(game_id, args)
        if self.waits:
            visible, version = int(reply[2]), int(reply[3])
            if first > visible and version > visible and (to_version is None or to_version > visible):
                # Asked for versions stored but not confirmed: they count if the
                # replicas have them now (else UNAVAILABLE: their fate is unknown).
                await self.confirm(game_id)
                reply = await self._read(game_id, args)
        # Each entry is [id, ["d", event]]: the scripts write one field, "d".
        return [StoredEvent(int(entry_id.split(b"-", 1)[0]), fields[1]) for entry_id, fields in reply[1]]

    async def _read(self, game_id: str, args: list[Any]) -> Any:
        reply = await self.redis.run(READ, [self.keys.meta(game_id), self.keys.events(game_id)], args)
        if reply[0] == b"missing":
            raise await self._missing(game_id)
        if reply[0] == b"bumped":
            raise CountersChanged(game_id)
        return reply

    async def _version(self, game_id: str) -> int:
        """The game's last version shown."""
        kind, version, confirmed = await self.redis.call(
            "HMGET", self.keys.meta(game_id), "kind", "version", "confirmed"
        )
        if kind is None:
            raise await self._missing(game_id)
        return int(confirmed if self.waits and confirmed is not None else version)

    async def bump(self, game_id: str, name: str) -> int:
        self._check_open()
        reply = await self.redis.run(BUMP, [self.keys.meta(game_id)], [name], durable=True)
        if reply[0] == b"missing":
            raise await self._missing(game_id)
        return int(reply[1])

    async def list_games(
        self, kind: str, status: str, limit: int, cursor: str, *, listed_only: bool = False
    ) -> GamePage:
        self._check_open()
        game_ids, next_cursor = await self.index.page(kind, status, limit, cursor, listed_only=listed_only)
        metas = await self.redis.read_many([("HGETALL", self.keys.meta(game_id)) for game_id in game_ids])
        infos = [_game_info(game_id, meta, self.waits) for game_id, meta in zip(game_ids, metas, strict=True)]
        return GamePage(self.index.matching(infos, kind, status, listed_only), next_cursor)

    # --- snapshots ----------------------------------------------------------------------

    async def put_snapshots(self, game_id: str, snapshots: Sequence[StoredSnapshot]) -> None:
        self._check_open()
        if not snapshots:
            return
        args = [item for snapshot in snapshots for item in (snapshot.version, snapshot.data)]
        await self.redis.run(PUT_SNAPSHOTS, [self.keys.meta(game_id), self.keys.snapshots(game_id)], args)

    async def snapshot(self, game_id: str, at_most: int | None = None) -> StoredSnapshot | None:
        self._check_open()
        keys = [self.keys.meta(game_id), self.keys.snapshots(game_id)]
        reply = await self.redis.run(SNAPSHOT, keys, ["+inf" if at_most is None else at_most])
        if reply[0] == b"missing":
            raise await self._missing(game_id)
        if not reply[1]:
            return None
        version, _, data = bytes(reply[1]).partition(b":")
        return StoredSnapshot(int(version), data)

    async def subscribe(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        self._check_open()
        async with contextlib.aclosing(self._live.follow(game_id, from_version, self._version, self.read)) as events:
            async for event in events:
                yield event

    def end_subscriptions(self) -> None:
        self._live.end_all(StoreUnavailable(SHUTTING_DOWN))

    # --- the connection --------------------------------------------------------------

    async def ping(self) -> None:
        self._check_open()
        await self.redis.ping()

    async def health(self) -> StoreHealth:
        return await probe(self.redis, self.keys)

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


def _game_info(game_id: str, meta: dict[bytes, bytes], waits: bool) -> GameInfo | None:
    if b"kind" not in meta:
        return None  # no such game
    version = int(meta[b"version"])
    if waits and b"confirmed" in meta:
        version = int(meta[b"confirmed"])
        if version == 0:
            return None  # created, but its replicas have not confirmed it: not shown yet
    counters = {name[len(COUNTER) :].decode(): int(value) for name, value in meta.items() if name.startswith(COUNTER)}
    return GameInfo(
        game_id=game_id,
        kind=meta[b"kind"].decode(),
        status=meta[b"status"].decode(),
        version=version,
        created_at_ms=int(meta[b"created_at"]),
        updated_at_ms=int(meta[b"updated_at"]),
        record=meta[b"record"],
        summary=meta[b"summary"],
        listed=meta.get(b"listed") == b"1",  # games older than the flag: not listed
        counters=counters,
        counters_revision=int(meta.get(b"bumps", 0)),
    )
