"""The event store's interface, in small parts, and the values they take and give.

A store keeps, per game, an append-only list of opaque event blobs numbered 1, 2, 3...,
the command ids already applied and named counters that reads and appends may be
conditioned on (`EventLog`); snapshots, opaque blobs about the game at a version
(`SnapshotStore`); how long to keep the game (`GameKeeping`: retention). Beside games,
it keeps bounded sets and marks shared by every process (`SharedSets`: quotas, rate
limits, single-use tickets) and what the processes coordinate through (`Coordination`:
claims, leases and holders, notices, a schedule). It knows nothing of games: `kind` and
`status` are only labels to list by, and `listed` says whether a listing for everyone
shows the game.

`EventStore` is all the parts behind one object (a backend implements them all: the
memory store and the Redis store), what the composition root opens and wraps; code that
needs one part names that part. Each part has its shared contract tests, run against
every backend: tests/service/test_store_event_log.py, test_store_snapshots.py,
test_store_keeping.py, test_store_sets.py, test_store_coordination.py."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


class StoreError(Exception):
    """Base of the store's errors."""


class GameNotFound(StoreError):
    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id!r}")
        self.game_id = game_id


class GameExists(StoreError):
    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} already exists")
        self.game_id = game_id


class VersionConflict(StoreError):
    """The game moved on since the version the append expected."""

    def __init__(self, game_id: str, expected: int, current: int) -> None:
        super().__init__(f"game {game_id!r} is at version {current}, not {expected}")
        self.expected = expected
        self.current = current


class CommandIdReused(StoreError):
    """A command id already applied, sent again with a different command."""

    def __init__(self, game_id: str, command_id: str) -> None:
        super().__init__(f"command id {command_id!r} was already used for another command")
        self.command_id = command_id


class CountersChanged(StoreError):
    """A conditional read or append found that the game's counters moved on since the
    revision the caller knew (see EventStore.bump)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"the counters of game {game_id!r} changed")
        self.game_id = game_id


class InvalidCursor(StoreError):
    """A listing cursor this store never gave (not a position among its games)."""

    def __init__(self, cursor: str) -> None:
        super().__init__(f"{cursor[:32]!r} is not a cursor of this store")
        self.cursor = cursor


class GameLost(GameNotFound):
    """The store no longer has a game it once had and did not delete: it was created
    (the store's listing still files it) and lost with a failed node (a Redis failover
    that promoted a replica which never received it)."""

    def __init__(self, game_id: str, filed: str = "") -> None:
        super().__init__(game_id)
        self.args = (f"game {game_id!r} was created, but the store no longer has it",)
        self.filed = filed  # what the listing last knew of it ("<version> <status> <kind>")


class StoreUnavailable(StoreError):
    """The store cannot be reached now; the operation may be retried. `reason` names
    the kind of failure for metrics (e.g. "timeout", "connection", "replicas");
    `shard`, when known, the part of the store that failed (a Redis master)."""

    def __init__(self, message: str, reason: str = "unavailable", shard: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.shard = shard

    def __str__(self) -> str:
        message = super().__str__()
        return f"{message} (shard {self.shard})" if self.shard else message


class VersionsLost(StoreError):
    """The store no longer has versions it once gave out: it is back at `version`,
    while a reader had been given versions up to `seen` (e.g. a Redis failover
    promoted a replica that had not received them)."""

    def __init__(self, game_id: str, version: int, seen: int) -> None:
        super().__init__(f"game {game_id!r} is back at version {version}; versions up to {seen} had been read")
        self.game_id = game_id
        self.version = version
        self.seen = seen


# Why subscriptions end when the server stops.
SHUTTING_DOWN = "this server is shutting down: follow the game again (from the next version) on another"


class SubscriberTooSlow(StoreError):
    """A live subscriber fell so far behind that its queue filled up."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What the store knows about a game besides its events."""

    game_id: str
    kind: str
    status: str
    version: int
    created_at_ms: int
    updated_at_ms: int
    record: bytes  # written once at creation (opaque)
    summary: bytes  # replaced by every append (opaque)
    listed: bool = True  # whether a listing for everyone shows it (set at creation)
    counters: Mapping[str, int] = field(default_factory=dict)  # bumped ones only (see EventStore.bump)
    counters_revision: int = 0  # how many bumps the game has had, all counters together


def head(data: bytes) -> bytes:
    """What identifies a stored event for EventStore.append's `after`: its SHA-1 in hex
    (what a Redis script can compute)."""
    return hashlib.sha1(data).hexdigest().encode()


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Versions first_version..last_version hold the command's events. `replayed`:
    the command id had already been applied and nothing was appended now."""

    first_version: int
    last_version: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class StoredEvent:
    version: int
    data: bytes


@dataclass(frozen=True, slots=True)
class ShardHealth:
    """One part of the store that takes writes (a Redis master; the memory store is
    one): whether a write reached it (and its replicas, when writes wait for them)
    just now, and how full its memory is."""

    name: str
    writable: bool
    problem: str = ""  # why not, when not
    memory_used: float = 0.0  # fraction of its memory limit in use (0: no limit known)
    reason: str = "unavailable"  # when not writable: the kind of failure, as StoreUnavailable.reason


@dataclass(frozen=True, slots=True)
class StoreHealth:
    shards: list[ShardHealth]

    @property
    def problems(self) -> list[str]:
        return [f"{shard.name}: {shard.problem}" for shard in self.shards if not shard.writable]


@dataclass(frozen=True, slots=True)
class Keep:
    """How long the store keeps a game, as the service decided at a write
    (service/app/keeping/retention.py): when to list it among the games due for review
    (`due_games`), and when the store may drop it by itself should nobody have
    reviewed it (Redis: every key of the game expires then). 0: never."""

    review_at_ms: int = 0
    expire_at_ms: int = 0


KEEP_FOREVER = Keep()


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game to create (EventLog.create): its first events (versions 1..n), the labels
    it is listed by, its record (written once, opaque) and summary (replaced by every
    append, opaque), when, and how long to keep it. `listed`: a listing for everyone
    (`list_games(listed_only=True)`) shows it."""

    game_id: str
    kind: str
    status: str
    record: bytes
    summary: bytes
    events: Sequence[bytes]
    now_ms: int
    keep: Keep = KEEP_FOREVER
    listed: bool = True


@dataclass(frozen=True, slots=True)
class AppendRequest:
    """Events to append to a game (EventLog.append), all or nothing, after
    `expected_version`, under the command id `command_id` (applied once; `fingerprint`
    tells its retry from another command reusing it), with the game's new status label
    and summary, when, and how long to keep it. `after`: the head() of the event the
    caller has at `expected_version` (empty: not checked), so that a history the caller
    never saw is not built on. `counters_revision`: the game's counters revision the
    caller knows (None: not checked)."""

    game_id: str
    expected_version: int
    events: Sequence[bytes]
    command_id: str
    fingerprint: bytes
    status: str
    summary: bytes
    now_ms: int
    keep: Keep = KEEP_FOREVER
    after: bytes = b""
    counters_revision: int | None = None


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    """An opaque blob about a game as it stood after `version` events (the service
    keeps its engine states there, so as not to fold every event from the first)."""

    version: int
    data: bytes


@dataclass(frozen=True, slots=True)
class GamePage:
    games: list[GameInfo]
    next_cursor: str  # empty on the last page


@dataclass(frozen=True, slots=True)
class Admission:
    """What `admit` decided. A refused member may try again after `retry_after_ms`
    (when the set's first member expires); None: not before a member is released."""

    admitted: bool
    retry_after_ms: int | None = None


# A scope's holders are kept this long after its last hold (Coordination.hold): the
# holders of a game nobody plays any more, or of a process that died, do not stay forever.
HOLDERS_KEPT_MS = 6 * 3600 * 1000


class Coordination(Protocol):
    """What the processes sharing a store coordinate through, besides the games' events:
    claimed keys, process leases and the holders of scopes, notices and a schedule. Keys,
    processes, scopes, holders and topics are opaque strings to the store. Times are the
    callers' milliseconds (now_ms), except a claim's lifetime, which the store measures
    itself."""

    async def claim(self, key: str, value: str, ttl_ms: int) -> str:
        """Gives `key` the value `value` for `ttl_ms` milliseconds unless it holds one
        already (set by any process, not expired). Returns the value it holds now:
        `value` when this call claimed it. Atomic: of racing claims, one wins."""
        ...

    async def lookup(self, key: str) -> str | None:
        """The value `key` holds, or None."""
        ...

    async def replace(self, key: str, expected: str, value: str, ttl_ms: int) -> str:
        """Gives `key` the value `value` for `ttl_ms` milliseconds if it holds `expected`
        or nothing (a claim moved on: compare-and-set). Returns the value it holds now:
        `value` when this call set it. Atomic: of racing replacements, one wins."""
        ...

    async def renew_process(
        self, process: str, now_ms: int, ttl_ms: int, forget_ms: int
    ) -> tuple[bool, dict[str, int]]:
        """Holds, or renews, `process`'s lease until now_ms + ttl_ms, and forgets the
        processes whose lease ended before now_ms - forget_ms. Returns whether `process`
        had no lease alive (a new one), and every process remembered (this one too) ->
        when its lease ends (or ended). One step: what a process renews once for all it holds."""
        ...

    async def processes(self, names: Sequence[str]) -> dict[str, int]:
        """When the leases of the named processes end (or ended), of those remembered."""
        ...

    async def hold(self, scope: str, holder: str, ends_ms: int | None, now_ms: int) -> bool:
        """`holder` holds `scope` until ends_ms (None: until `unhold`; what else ends it,
        such as its process's lease, is the caller's to judge). True when the holder held
        nothing alive at now_ms (a new hold). A scope nobody holds for HOLDERS_KEPT_MS
        may be forgotten with its holders (a holder lasting longer holds again now and then)."""
        ...

    async def unhold(self, scope: str, holders: Sequence[str]) -> None:
        """The holders hold `scope` no more (nothing for those that did not)."""
        ...

    async def holders(self, scope: str, now_ms: int) -> dict[str, int | None]:
        """The holders of `scope` whose hold has not ended at now_ms: holder -> when it
        ends (None: until `unhold`)."""
        ...

    async def notify(self, topic: str) -> None:
        """Tells every process reading notices() about `topic`."""
        ...

    def notices(self) -> AsyncIterator[str]:
        """The topics notified, by any process, from now on, in order. Best effort: a
        reader that cannot reach the store misses what was notified meanwhile. Ends
        with StoreUnavailable when the store closes."""
        ...

    async def schedule(self, key: str, due_ms: int) -> None:
        """Makes `key` due at due_ms (in place of when it was due, if it was)."""
        ...

    async def unschedule(self, key: str) -> None:
        """`key` is not due any more (nothing if it was not)."""
        ...

    async def due(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """At most `limit` keys due at or before now_ms, soonest first, with when."""
        ...


class EventLog(Protocol):
    """Each game's events, numbered from 1, appended all or nothing with a
    compare-and-set on the version, read by range and followed live; the command ids
    applied, the game's counters, and the labels it is listed by."""

    async def create(self, game: NewGame) -> None:
        """Creates a game with its first events, kept as `game.keep` says. Raises
        GameExists if the id is taken, unless by this very creation (same record: a
        retry)."""
        ...

    async def append(self, request: AppendRequest) -> AppendResult:
        """Appends the request's events after its `expected_version`, all or nothing,
        records its `command_id` (with the command's `fingerprint`), and keeps the game
        as `keep` says. When the command id was already applied, appends nothing and
        returns the first result (or raises CommandIdReused if the fingerprint differs).
        Raises VersionConflict when the game is not at `expected_version`, or (given
        `after`) holds another event there; GameNotFound; and CountersChanged (before
        anything else) when `counters_revision` is given and is not the game's."""
        ...

    async def find_command(self, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
        """The result of an already applied command id, or None. Raises
        CommandIdReused when it was applied with another fingerprint."""
        ...

    async def info(self, game_id: str) -> GameInfo:
        """Raises GameNotFound."""
        ...

    async def read(
        self, game_id: str, from_version: int, to_version: int | None = None, *, counters_revision: int | None = None
    ) -> list[StoredEvent]:
        """Events from_version..to_version inclusive (to the end when None). Raises
        GameNotFound, and CountersChanged when `counters_revision` is given and is not
        the game's (in the same round trip: a cache checks it for free)."""
        ...

    async def bump(self, game_id: str, name: str) -> int:
        """Increments the game's counter `name` (from 0) and the game's counters
        revision, at once; returns the counter's new value. Raises GameNotFound."""
        ...

    async def list_games(
        self, kind: str, status: str, limit: int, cursor: str, *, listed_only: bool = False
    ) -> GamePage:
        """Games newest first; empty kind/status match all; `listed_only`: only the
        games created `listed`. `cursor` continues a page; one the store never gave
        raises InvalidCursor."""
        ...

    def subscribe(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        """Events from `from_version` on, then live ones as they are appended, in
        order, without gaps or repeats. Ends with SubscriberTooSlow if the
        subscriber cannot keep up, with VersionsLost if the store went back behind
        what it had given the subscriber."""
        ...

    def end_subscriptions(self) -> None:
        """Ends every subscription, and every later one, with StoreUnavailable(SHUTTING_DOWN)
        (the server is stopping: its followers resume elsewhere); reads and writes go on."""
        ...


class SnapshotStore(Protocol):
    """Snapshots: opaque blobs about a game as it stood at a version, kept beside its
    events (the service keeps its engine states there)."""

    async def put_snapshots(self, game_id: str, snapshots: Sequence[StoredSnapshot]) -> None:
        """Keeps each snapshot, replacing one kept at the same version. Snapshots of a
        game that does not exist (any more) are not kept. Expire and are deleted with
        the game."""
        ...

    async def snapshot(self, game_id: str, at_most: int | None = None) -> StoredSnapshot | None:
        """The kept snapshot of the highest version up to `at_most` (None: any), or None.
        Raises GameNotFound."""
        ...


class GameKeeping(Protocol):
    """How long each game is kept, and its end (service/app/keeping/retention.py): every
    write says how long to keep the game (Keep); these review and delete it."""

    async def due_games(self, now_ms: int, limit: int) -> list[str]:
        """Up to `limit` games whose review time (Keep.review_at_ms) has come, the
        earliest first; also games the store dropped by itself, still listed. A store may
        list a game by the review time of an earlier write (Redis files it anew only when
        its status changes): the service then finds it must stay and `keep`s it."""
        ...

    async def keep(self, game_id: str, keep: Keep) -> None:
        """Sets how long the store keeps a game (after a review found it must stay).
        Raises GameNotFound."""
        ...

    async def claim(self, game_id: str, owner: str, until_ms: int, now_ms: int) -> bool:
        """Whether `owner` may expire the game now: true unless another owner claimed
        it until after `now_ms`; the claim lasts until `until_ms`. Raises GameNotFound."""
        ...

    async def delete(self, game_id: str, version: int | None = None) -> bool:
        """Deletes a game (events, snapshots, command ids, everything) and unlists it;
        its live subscriptions end with GameNotFound. With `version`: only if the game
        is still at that version (False, and nothing deleted, otherwise). Raises
        GameNotFound."""
        ...

    async def forget(self, game_id: str) -> None:
        """Unlists a game that is gone (the store dropped it by itself)."""
        ...


class SharedSets(Protocol):
    """Bounded sets and marks shared by every process sharing the store: creation
    quotas and rate limits (`admit`), things that may happen once (`mark_once`)."""

    async def admit(self, key: str, member: str, limit: int, now_ms: int, ttl_ms: int | None = None) -> Admission:
        """Adds `member` to the bounded set `key`, shared by every process, if it holds
        fewer than `limit` members; a member already in is admitted again, unchanged.
        `ttl_ms`: the member leaves by itself that long after `now_ms` (a rate limit's
        sliding window); None: only when released (a quota). Expired members neither
        count nor stay. A set's members all have a ttl, or none do."""
        ...

    async def release(self, key: str, member: str) -> None:
        """Takes `member` out of the set `key` (nothing if it is not in)."""
        ...

    async def members(self, key: str, now_ms: int) -> list[str]:
        """The members of the set `key` that have not expired at `now_ms`."""
        ...

    async def mark_once(self, key: str, ttl_ms: int) -> bool:
        """Marks `key` for `ttl_ms` milliseconds unless it is marked already: True when
        this call marked it, False when it was marked (by any process sharing the
        store) and has not expired. A set-if-absent with an expiry, for things that
        may happen once (a stream ticket spent); the key is opaque to the store."""
        ...


class StoreConnection(Protocol):
    """The store as a whole: reachable, healthy, closed."""

    async def ping(self) -> None:
        """Raises StoreUnavailable when the store cannot be reached."""
        ...

    async def health(self) -> StoreHealth:
        """Whether each shard can be written now, and its memory use. Never raises
        StoreUnavailable: an unreachable shard is reported as not writable."""
        ...

    async def close(self) -> None: ...


# Each part of the store, by name (what instrumented() times, what the contract tests
# check each backend implements); Coordination is reached as `store.coordination`.
PARTS: tuple[type, ...] = (EventLog, SnapshotStore, GameKeeping, SharedSets, StoreConnection)


class EventStore(EventLog, SnapshotStore, GameKeeping, SharedSets, StoreConnection, Protocol):
    """Every part of the store behind one object, as a backend implements them and the
    composition root opens one; coordination beside them."""

    @property
    def coordination(self) -> Coordination:
        """Claims, process leases and holders, notices and the schedule (open seats, presence, turn clocks)."""
        ...
