"""Key names of the Redis store.

A game's keys share the hash tag `{<game_id>}`, so a game lives in one Redis Cluster
slot and one Lua script can change all of it at once:
    <prefix>:{<game_id>}:events    stream, entry ID "<version>-0", field d = the event
    <prefix>:{<game_id>}:meta      hash: kind, status, version, created_at, updated_at,
                                   record, summary, seq, status_token, fenced
    <prefix>:{<game_id>}:commands  hash: command id -> "<first> <last> <fingerprint hex>"
The listing index is global, under its own tag `{index}` (one other slot):
    <prefix>:index:{index}:all, :kind:<kind>, :status:<status>, :kind:<kind>:status:<status>
                                   sorted sets of game ids scored by creation order
    <prefix>:index:{index}:games   hash: game id -> "<version> <status>" as filed
    <prefix>:index:{index}:pending sorted set of intents "<token>:<game_id>" by time
    <prefix>:index:{index}:seq     counter: creation order and intent tokens
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

    @property
    def index_prefix(self) -> str:
        return f"{self.prefix}:index:{{index}}:"

    def index_set(self, kind: str, status: str) -> str:
        """The sorted set of the games of `kind` and `status` (empty: any)."""
        if kind and status:
            return f"{self.index_prefix}kind:{kind}:status:{status}"
        if kind:
            return f"{self.index_prefix}kind:{kind}"
        if status:
            return f"{self.index_prefix}status:{status}"
        return f"{self.index_prefix}all"

    @property
    def filed(self) -> str:
        return f"{self.index_prefix}games"

    @property
    def pending(self) -> str:
        return f"{self.index_prefix}pending"

    @property
    def sequence(self) -> str:
        return f"{self.index_prefix}seq"
