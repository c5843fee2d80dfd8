"""The Redis store's Lua scripts. Each runs atomically on the node that owns its keys.

Game scripts touch only one game's keys (`{<game_id>}` hash tag: one cluster slot).
Index scripts touch only the listing index's keys (`{index}` hash tag: another slot),
so no script ever spans two slots. The `#!lua` line makes Redis 7 refuse a writing
script up front when it is out of memory, instead of failing half way through: with
every check done before the first write, a script writes all or nothing.

Replies are arrays whose first item names the outcome, so Python never has to parse
an error message. Intent tokens (see redis_index.py) are integers compared as numbers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Script:
    name: str
    source: str
    sha: str = field(init=False)  # what EVALSHA names it by: hashed once, not at every call

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.source.encode()).hexdigest())


# KEYS: meta, events. ARGV: first entry id, last entry id (or '+'). The events in that
# range, and whether the game exists in the same round trip: a cached game's refresh
# finds no new event most of the time, and asking apart doubled its cost.
READ = Script(
    "read",
    """#!lua flags=no-writes
local entries = redis.call('XRANGE', KEYS[2], ARGV[1], ARGV[2])
if #entries == 0 and redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return {'missing'} end
return {'ok', entries}
""",
)

# KEYS: meta, events. ARGV: kind, status, record, summary, now_ms, token, event...
CREATE = Script(
    "create",
    """#!lua
local meta, events = KEYS[1], KEYS[2]
local current = redis.call('HMGET', meta, 'kind', 'fenced')
if current[1] then return {'exists'} end
local token = ARGV[6]
if current[2] and tonumber(token) <= tonumber(current[2]) then return {'fenced'} end
local version = 0
for i = 7, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', meta, 'kind', ARGV[1], 'status', ARGV[2], 'record', ARGV[3], 'summary', ARGV[4],
  'version', version, 'created_at', ARGV[5], 'updated_at', ARGV[5], 'seq', token, 'status_token', token)
return {'ok', version}
""",
)

# KEYS: meta, events, commands.
# ARGV: expected_version, command_id, command record tail (fingerprint), status, summary,
#       now_ms, token ('' when the caller holds no intent), event...
# The command record is "<first> <last> <fingerprint hex>".
APPEND = Script(
    "append",
    """#!lua
local meta, events, commands = KEYS[1], KEYS[2], KEYS[3]
local current = redis.call('HMGET', meta, 'version', 'status', 'fenced')
if not current[1] then return {'missing'} end
local known = redis.call('HGET', commands, ARGV[2])
if known then return {'known', known} end
local version = tonumber(current[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', version} end
local status, token = ARGV[4], ARGV[7]
local changes = status ~= current[2]
if changes and (token == '' or (current[3] and tonumber(token) <= tonumber(current[3]))) then
  return {'intent'}
end
local first = version + 1
for i = 8, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', commands, ARGV[2], first .. ' ' .. version .. ' ' .. ARGV[3])
redis.call('HSET', meta, 'version', version, 'status', status, 'summary', ARGV[5], 'updated_at', ARGV[6])
if changes then
  redis.call('HSET', meta, 'status_token', token)
  local labels = redis.call('HMGET', meta, 'kind', 'seq')
  return {'changed', version, labels[1], labels[2]}
end
return {'ok', version}
""",
)

# KEYS: meta, commands. ARGV: command_id.
FIND_COMMAND = Script(
    "find_command",
    """#!lua flags=no-writes
if redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return {'missing'} end
return {'ok', redis.call('HGET', KEYS[2], ARGV[1])}
""",
)

# KEYS: meta. ARGV: token. Settles an intent on the game's side: if the write that
# carried `token` landed, nothing changes; otherwise it never will (every token up to
# this one is refused from now on). Returns the game's labels as they now stand.
FENCE = Script(
    "fence",
    """#!lua
local meta, token = KEYS[1], ARGV[1]
local current = redis.call('HMGET', meta, 'kind', 'status', 'version', 'seq', 'status_token', 'fenced')
if current[5] ~= token and (not current[6] or tonumber(current[6]) < tonumber(token)) then
  redis.call('HSET', meta, 'fenced', token)
end
if not current[1] then return {'missing'} end
return {'ok', current[1], current[2], current[3], current[4]}
""",
)

# KEYS: seq, pending. ARGV: game_id. A new intent token, recorded as pending (scored by
# the server's clock, so every process agrees on its age).
INTENT = Script(
    "intent",
    """#!lua
local token = redis.call('INCR', KEYS[1])
local now = redis.call('TIME')
redis.call('ZADD', KEYS[2], now[1] * 1000 + math.floor(now[2] / 1000), token .. ':' .. ARGV[1])
return token
""",
)

# KEYS: games (hash game_id -> "<version> <status>"), pending.
# ARGV: set key prefix, game_id, pending member, exists ('1' or '0'), kind, status,
#       version, seq.
# Files the game under its kind and status as of `version` (unless the index already
# holds a newer version) and drops the pending intent. The set keys are built here
# from the prefix: they share the index's hash tag, so they live in this same slot.
SYNC = Script(
    "sync",
    """#!lua
local games, pending, prefix, game_id = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
if ARGV[4] == '1' then
  local kind, status, version, seq = ARGV[5], ARGV[6], tonumber(ARGV[7]), ARGV[8]
  local filed = redis.call('HGET', games, game_id)
  local newer = false
  if filed then
    local filed_version, filed_status = string.match(filed, '^(%d+) (.*)$')
    if tonumber(filed_version) > version then
      newer = true
    elseif filed_status ~= status then
      redis.call('ZREM', prefix .. 'status:' .. filed_status, game_id)
      redis.call('ZREM', prefix .. 'kind:' .. kind .. ':status:' .. filed_status, game_id)
    end
  end
  if not newer then
    redis.call('ZADD', prefix .. 'all', seq, game_id)
    redis.call('ZADD', prefix .. 'kind:' .. kind, seq, game_id)
    redis.call('ZADD', prefix .. 'status:' .. status, seq, game_id)
    redis.call('ZADD', prefix .. 'kind:' .. kind .. ':status:' .. status, seq, game_id)
    redis.call('HSET', games, game_id, version .. ' ' .. status)
  end
end
redis.call('ZREM', pending, ARGV[3])
return 1
""",
)

# KEYS: pending. ARGV: grace_ms, limit. The intents older than the grace period.
DUE_INTENTS = Script(
    "due_intents",
    """#!lua flags=no-writes
local now = redis.call('TIME')
local before = now[1] * 1000 + math.floor(now[2] / 1000) - tonumber(ARGV[1])
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', before, 'LIMIT', 0, tonumber(ARGV[2]))
""",
)

# KEYS: meta, snapshots. ARGV: version, snapshot, version, snapshot... Keeps each
# snapshot, replacing one of the same version; nothing for a game that is gone. The
# snapshots expire with the game (its meta's time to live).
PUT_SNAPSHOTS = Script(
    "put_snapshots",
    """#!lua
local meta, snapshots = KEYS[1], KEYS[2]
if redis.call('HEXISTS', meta, 'kind') == 0 then return 0 end
for i = 1, #ARGV, 2 do
  redis.call('ZREMRANGEBYSCORE', snapshots, ARGV[i], ARGV[i])
  redis.call('ZADD', snapshots, ARGV[i], ARGV[i] .. ':' .. ARGV[i + 1])
end
local ttl = redis.call('PTTL', meta)
if ttl > 0 then redis.call('PEXPIRE', snapshots, ttl) end
return 1
""",
)

# KEYS: meta, snapshots. ARGV: the highest version wanted ('+inf': any). The snapshot
# of the highest version up to it (false: none), and whether the game exists.
SNAPSHOT = Script(
    "snapshot",
    """#!lua flags=no-writes
if redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return {'missing'} end
local found = redis.call('ZREVRANGEBYSCORE', KEYS[2], ARGV[1], '-inf', 'LIMIT', 0, 1)
return {'ok', found[1] or false}
""",
)

ALL = (CREATE, APPEND, READ, FIND_COMMAND, FENCE, INTENT, SYNC, DUE_INTENTS, PUT_SNAPSHOTS, SNAPSHOT)
