"""Key names of the Redis store.

A game's keys share the hash tag `{<game_id>}`, so a game lives in one Redis Cluster
slot and one Lua script can change all of it at once:
    <prefix>:{<game_id>}:events    stream, entry ID "<version>-0", field d = the event
    <prefix>:{<game_id>}:meta      hash: kind, status, version, created_at, updated_at,
                                   record, summary, listed, bumps (the counters'
                                   revision), counter:<name>, review_at (retention),
                                   claim ("<owner> <until ms>": who expires it);
                                   confirmed (the last version its replicas
                                   confirmed, when writes wait for them)
    <prefix>:{<game_id>}:commands  hash: command id -> "<first> <last> <fingerprint hex>"
    <prefix>:{<game_id>}:moves     a sharded pub/sub channel (SPUBLISH, on the game's
                                   slot, no key): the last version shown, after each
                                   append (or its replicas' confirmation), 'x' once
                                   deleted: what wakes the processes following the game
    <prefix>:{<game_id>}:snapshots sorted set: "<version>:<snapshot>" scored by version
Every key of a game expires at the time its last write (or review) set, a backstop
should no server delete it (service/app/keeping/retention.py). A deleted game's events stream
stays a minute with one last entry that holds no event: live readers end its followers.
Games whose listing may lag behind them, one sorted set per cluster slot, in that slot
(the tag is any string that hashes to it), so a game's own script records it:
    <prefix>:filing:{<slot tag>}   game ids scored by the time (ms) of their last change
The listing index is global, under its own tag `{index}` (one other slot):
    <prefix>:index:{index}:all, :kind:<kind>, :status:<status>, :kind:<kind>:status:<status>
                                   sorted sets of game ids scored by filing order
    <prefix>:index:{index}:listed:all, :listed:kind:<kind>...
                                   the same, of the games created `listed` only
    <prefix>:index:{index}:games   hash: game id -> "<version> <status> <kind>" as filed
    <prefix>:index:{index}:seq     counter: the filing order
    <prefix>:index:{index}:due     sorted set: game ids scored by their next review (ms)
Readiness writes a probe to one key per master: <prefix>:probe:{<slot tag>}.
The bounded sets of `admit` (quotas, rate limits), one key each (any slot):
    <prefix>:limit:<key>           sorted set: member -> expiry (ms; +inf: none)
Marks (EventStore.mark_once) are plain keys with an expiry, each in its own slot:
    <prefix>:mark:<key>            "1", set with SET NX PX
Claims, process leases and holders (presence), notices and the schedule: see redis_coordination.py.
"""

from __future__ import annotations

import functools
import itertools
from binascii import crc_hqx
from dataclasses import dataclass

from redis.crc import REDIS_CLUSTER_HASH_SLOTS


@dataclass(frozen=True, slots=True)
class Keys:
    prefix: str = "ludo"

    def events(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:events"

    def meta(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:meta"

    def commands(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:commands"

    def moves(self, game_id: str) -> str:
        """The game's channel (sharded pub/sub), not a key."""
        return f"{self.prefix}:{{{game_id}}}:moves"

    def snapshots(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:snapshots"

    def of_game(self, game_id: str) -> list[str]:
        """Every key of a game (all in its slot), as the retention scripts take them."""
        return [
            self.meta(game_id),
            self.events(game_id),
            self.commands(game_id),
            self.snapshots(game_id),
        ]

    def game_of(self, key: str) -> str:
        """The game id of one of its keys or its channel."""
        return key[key.index("{") + 1 : key.rindex("}")]

    def filing(self, slot: int) -> str:
        return f"{self.prefix}:filing:{{{slot_tag(slot)}}}"

    def probe(self, slot: int) -> str:
        return f"{self.prefix}:probe:{{{slot_tag(slot)}}}"

    def mark(self, key: str) -> str:
        return f"{self.prefix}:mark:{key}"

    @property
    def index_prefix(self) -> str:
        return f"{self.prefix}:index:{{index}}:"

    def index_set(self, kind: str, status: str, *, listed_only: bool = False) -> str:
        """The sorted set of the games of `kind` and `status` (empty: any); `listed_only`:
        of the games created listed."""
        prefix = self.index_prefix + ("listed:" if listed_only else "")
        if kind and status:
            return f"{prefix}kind:{kind}:status:{status}"
        if kind:
            return f"{prefix}kind:{kind}"
        if status:
            return f"{prefix}status:{status}"
        return f"{prefix}all"

    def limit(self, key: str) -> str:
        """The sorted set of `admit`'s set `key`."""
        return f"{self.prefix}:limit:{key}"

    @property
    def filed(self) -> str:
        return f"{self.index_prefix}games"

    @property
    def sequence(self) -> str:
        return f"{self.index_prefix}seq"

    @property
    def due(self) -> str:
        return f"{self.index_prefix}due"


def slot_tag(slot: int) -> str:
    """A short hash tag whose keys live in cluster slot `slot`."""
    return _slot_tags()[slot]


@functools.cache
def _slot_tags() -> list[str]:
    # The first string of the form "s<n>" to hash to each slot: about 160,000 tries
    # find all 16,384, once per process (under 0.1 s). A slot is CRC16 mod 16384.
    tags: list[bytes | None] = [None] * REDIS_CLUSTER_HASH_SLOTS
    missing = REDIS_CLUSTER_HASH_SLOTS
    for n in itertools.count():
        tag = b"s%d" % n
        slot = crc_hqx(tag, 0) % REDIS_CLUSTER_HASH_SLOTS
        if tags[slot] is None:
            tags[slot] = tag
            missing -= 1
            if not missing:
                return [tag.decode() for tag in tags if tag is not None]
    raise AssertionError("unreachable")
