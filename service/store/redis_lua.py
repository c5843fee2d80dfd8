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


# KEYS: meta, events. ARGV: first entry id, last entry id (or '+'), counters revision
# ('' for any). The events in that range, and whether the game exists in the same round
# trip: a cached game's refresh finds no new event most of the time, and asking apart
# doubled its cost. The revision check costs a refresh nothing either.
READ = Script(
    "read",
    """#!lua flags=no-writes
local entries = redis.call('XRANGE', KEYS[2], ARGV[1], ARGV[2])
if #entries == 0 and redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return {'missing'} end
if ARGV[3] ~= '' and (redis.call('HGET', KEYS[1], 'bumps') or '0') ~= ARGV[3] then return {'bumped'} end
return {'ok', entries}
""",
)

# KEYS: meta, events. ARGV: kind, status, record, summary, now_ms, token, listed ('1' or
# '0'), event...
CREATE = Script(
    "create",
    """#!lua
local meta, events = KEYS[1], KEYS[2]
local current = redis.call('HMGET', meta, 'kind', 'fenced')
if current[1] then return {'exists'} end
local token = ARGV[6]
if current[2] and tonumber(token) <= tonumber(current[2]) then return {'fenced'} end
local version = 0
for i = 8, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', meta, 'kind', ARGV[1], 'status', ARGV[2], 'record', ARGV[3], 'summary', ARGV[4],
  'version', version, 'created_at', ARGV[5], 'updated_at', ARGV[5], 'seq', token, 'status_token', token,
  'listed', ARGV[7])
return {'ok', version}
""",
)

# KEYS: meta, events, commands.
# ARGV: expected_version, command_id, command record tail (fingerprint), status, summary,
#       now_ms, token ('' when the caller holds no intent), counters revision ('' for
#       any), event...
# The command record is "<first> <last> <fingerprint hex>".
APPEND = Script(
    "append",
    """#!lua
local meta, events, commands = KEYS[1], KEYS[2], KEYS[3]
local current = redis.call('HMGET', meta, 'version', 'status', 'fenced', 'bumps')
if not current[1] then return {'missing'} end
if ARGV[8] ~= '' and (current[4] or '0') ~= ARGV[8] then return {'bumped'} end
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
for i = 9, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', commands, ARGV[2], first .. ' ' .. version .. ' ' .. ARGV[3])
redis.call('HSET', meta, 'version', version, 'status', status, 'summary', ARGV[5], 'updated_at', ARGV[6])
if changes then
  redis.call('HSET', meta, 'status_token', token)
  local labels = redis.call('HMGET', meta, 'kind', 'seq', 'listed')
  return {'changed', version, labels[1], labels[2], labels[3] or '0'}
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
local current = redis.call('HMGET', meta, 'kind', 'status', 'version', 'seq', 'status_token', 'fenced', 'listed')
if current[5] ~= token and (not current[6] or tonumber(current[6]) < tonumber(token)) then
  redis.call('HSET', meta, 'fenced', token)
end
if not current[1] then return {'missing'} end
return {'ok', current[1], current[2], current[3], current[4], current[7] or '0'}
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
#       version, seq, listed ('1' or '0').
# Files the game under its kind and status as of `version` (unless the index already
# holds a newer version) and drops the pending intent; a listed game also in the
# `listed:` sets. The set keys are built here from the prefix: they share the index's
# hash tag, so they live in this same slot.
SYNC = Script(
    "sync",
    """#!lua
local games, pending, game_id = KEYS[1], KEYS[2], ARGV[2]
if ARGV[4] == '1' then
  local kind, status, version, seq = ARGV[5], ARGV[6], tonumber(ARGV[7]), ARGV[8]
  local prefixes = {ARGV[1]}
  if ARGV[9] == '1' then prefixes[2] = ARGV[1] .. 'listed:' end
  local filed = redis.call('HGET', games, game_id)
  local newer = false
  if filed then
    local filed_version, filed_status = string.match(filed, '^(%d+) (.*)$')
    if tonumber(filed_version) > version then
      newer = true
    elseif filed_status ~= status then
      for _, prefix in ipairs(prefixes) do
        redis.call('ZREM', prefix .. 'status:' .. filed_status, game_id)
        redis.call('ZREM', prefix .. 'kind:' .. kind .. ':status:' .. filed_status, game_id)
      end
    end
  end
  if not newer then
    for _, prefix in ipairs(prefixes) do
      redis.call('ZADD', prefix .. 'all', seq, game_id)
      redis.call('ZADD', prefix .. 'kind:' .. kind, seq, game_id)
      redis.call('ZADD', prefix .. 'status:' .. status, seq, game_id)
      redis.call('ZADD', prefix .. 'kind:' .. kind .. ':status:' .. status, seq, game_id)
    end
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

# KEYS: meta. ARGV: counter name. Bumps the counter and the game's counters revision.
BUMP = Script(
    "bump",
    """#!lua
if redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return {'missing'} end
redis.call('HINCRBY', KEYS[1], 'bumps', 1)
return {'ok', redis.call('HINCRBY', KEYS[1], 'counter:' .. ARGV[1], 1)}
""",
)

# KEYS: the set. ARGV: member, limit, now_ms, ttl_ms ('' for none).
# A bounded set (EventStore.admit): members scored by their expiry (+inf: none). The
# expired ones go first; a refused member learns the first expiry ('inf': none). The key
# itself expires with its members' ttl, so the sets of idle identities vanish.
ADMIT = Script(
    "admit",
    """#!lua
local key, member, limit, now, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZSCORE', key, member) then return {1} end
if redis.call('ZCARD', key) < limit then
  if ttl == '' then
    redis.call('ZADD', key, '+inf', member)
  else
    redis.call('ZADD', key, now + tonumber(ttl), member)
    redis.call('PEXPIRE', key, tonumber(ttl))
  end
  return {1}
end
local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {0, first[2]}
""",
)

# KEYS: the set. ARGV: now_ms. The members that have not expired.
MEMBERS = Script(
    "members",
    """#!lua flags=no-writes
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')
""",
)

ALL = (CREATE, APPEND, READ, FIND_COMMAND, FENCE, INTENT, SYNC, DUE_INTENTS, BUMP, ADMIT, MEMBERS)
