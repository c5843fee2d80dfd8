"""Key names of the Redis store.

A game's keys share the hash tag `{<game_id>}`, so a game lives in one Redis Cluster
slot and one Lua script can change all of it at once:
    <prefix>:{<game_id>}:events    stream, entry ID "<version>-0", field d = the event
    <prefix>:{<game_id>}:meta      hash: kind, status, version, created_at, updated_at,
                                   record, summary, seq, status_token, fenced, listed,
                                   bumps (the counters' revision), counter:<name>
    <prefix>:{<game_id>}:commands  hash: command id -> "<first> <last> <fingerprint hex>"
The listing index is global, under its own tag `{index}` (one other slot):
    <prefix>:index:{index}:all, :kind:<kind>, :status:<status>, :kind:<kind>:status:<status>
                                   sorted sets of game ids scored by creation order
    <prefix>:index:{index}:listed:all, :listed:kind:<kind>...
                                   the same, of the games created `listed` only
    <prefix>:index:{index}:games   hash: game id -> "<version> <status>" as filed
    <prefix>:index:{index}:pending sorted set of intents "<token>:<game_id>" by time
    <prefix>:index:{index}:seq     counter: creation order and intent tokens
The bounded sets of `admit` (quotas, rate limits), one key each (any slot):
    <prefix>:limit:<key>           sorted set: member -> expiry (ms; +inf: none)
Marks (EventStore.mark_once) are plain keys with an expiry, each in its own slot:
    <prefix>:mark:<key>            "1", set with SET NX PX
Claims, leases, notices and the schedule: see redis_coordination.py.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Keys:
    prefix: str = "ludo"

    def events(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:events"

    def meta(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:meta"

    def commands(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:commands"

    def game_of_events(self, key: str) -> str:
        """The game id of an events key (as XREAD names it)."""
        return key[key.index("{") + 1 : key.rindex("}")]

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
    def pending(self) -> str:
        return f"{self.index_prefix}pending"

    @property
    def sequence(self) -> str:
        return f"{self.index_prefix}seq"
