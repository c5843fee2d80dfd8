"""The Redis store's Lua scripts. Each runs atomically on the node that owns its keys.

Game scripts touch only one game's keys (`{<game_id>}` hash tag: one cluster slot) and
the filing set of that slot. Index scripts touch only the listing index's keys
(`{index}` hash tag: another slot), so no script ever spans two slots. The `#!lua` line makes Redis 7 refuse a writing
script up front when it is out of memory, instead of failing half way through: with
every check done before the first write, a script writes all or nothing.

Replies are arrays whose first item names the outcome, so Python never has to parse
an error message.
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


# KEYS: meta, events. ARGV: first version, last version (or '+'), visible_only ('1' when
# writes wait for replicas: only versions up to `confirmed` are read), counters revision
# ('' for any). The events in that range, and whether the game exists, in the same round
# trip: a cached game's refresh finds no new event most of the time, and asking apart
# doubled its cost; the revision check costs a refresh nothing either. With
# visible_only, also the last visible version and the last stored one.
READ = Script(
    "read",
    """#!lua flags=no-writes
local meta, events, first, last, revision = KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[4]
if ARGV[3] == '1' then
  local current = redis.call('HMGET', meta, 'kind', 'version', 'confirmed', 'bumps')
  if not current[1] then return {'missing'} end
  if revision ~= '' and (current[4] or '0') ~= revision then return {'bumped'} end
  local visible = tonumber(current[3] or current[2])
  local stop = visible
  if last ~= '+' and tonumber(last) < stop then stop = tonumber(last) end
  local entries = {}
  if tonumber(first) <= stop then entries = redis.call('XRANGE', events, first .. '-0', stop .. '-0') end
  return {'ok', entries, visible, tonumber(current[2])}
end
if last ~= '+' then last = last .. '-0' end
local entries = redis.call('XRANGE', events, first .. '-0', last)
if #entries == 0 and redis.call('HEXISTS', meta, 'kind') == 0 then return {'missing'} end
if revision ~= '' and (redis.call('HGET', meta, 'bumps') or '0') ~= revision then return {'bumped'} end
return {'ok', entries}
""",
)

# The time of Redis's clock in milliseconds, for a script.
_NOW_MS = "local now = redis.call('TIME')\nlocal now_ms = now[1] * 1000 + math.floor(now[2] / 1000)\n"

# KEYS: meta, events, filing. ARGV: kind, status, record, summary, now_ms, pending ('1':
# writes wait for replicas, the game is shown once they confirm it), game_id, listed
# ('1' or '0'), event...
# The same creation sent again (its record is unique) answers as the first did.
CREATE = Script(
    "create",
    """#!lua
local meta, events, filing = KEYS[1], KEYS[2], KEYS[3]
local current = redis.call('HMGET', meta, 'kind', 'record', 'version')
if current[1] then
  if current[2] == ARGV[3] then return {'ok', tonumber(current[3]), redis.call('ZSCORE', filing, ARGV[7])} end
  return {'exists'}
end
local version = 0
for i = 9, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', meta, 'kind', ARGV[1], 'status', ARGV[2], 'record', ARGV[3], 'summary', ARGV[4],
  'version', version, 'created_at', ARGV[5], 'updated_at', ARGV[5], 'listed', ARGV[8])
if ARGV[6] == '1' then redis.call('HSET', meta, 'confirmed', 0) end
"""
    + _NOW_MS
    + """redis.call('ZADD', filing, now_ms, ARGV[7])
return {'ok', version, now_ms}
""",
)

# KEYS: meta, events, commands, filing.
# ARGV: expected_version, command_id, command record tail (fingerprint), status, summary,
#       now_ms, pending ('1' or '0', as for CREATE), game_id, after (the SHA-1 hex of the
#       event the caller has at expected_version, or ''), counters revision ('' for
#       any), event...
# The command record is "<first> <last> <fingerprint hex>". A conflict (another version,
# or another event at that version) answers the game's version and its last visible one.
# Counters that moved on (EventStore.bump) refuse the append before anything else.
APPEND = Script(
    "append",
    """#!lua
local meta, events, commands, filing = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local current = redis.call('HMGET', meta, 'version', 'status', 'confirmed', 'bumps')
if not current[1] then return {'missing'} end
if ARGV[10] ~= '' and (current[4] or '0') ~= ARGV[10] then return {'bumped'} end
local known = redis.call('HGET', commands, ARGV[2])
if known then return {'known', known} end
local version = tonumber(current[1])
local conflict = {'conflict', version, tonumber(current[3] or current[1])}
if version ~= tonumber(ARGV[1]) then return conflict end
if ARGV[9] ~= '' and version > 0 then
  local head = redis.call('XRANGE', events, version .. '-0', version .. '-0')
  if #head == 0 or redis.sha1hex(head[1][2][2]) ~= ARGV[9] then return conflict end
end
local first = version + 1
for i = 11, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', commands, ARGV[2], first .. ' ' .. version .. ' ' .. ARGV[3])
redis.call('HSET', meta, 'version', version, 'status', ARGV[4], 'summary', ARGV[5], 'updated_at', ARGV[6])
if ARGV[7] == '1' then
  -- a game stored before writes waited for replicas: all it had is shown
  if not current[3] then redis.call('HSET', meta, 'confirmed', ARGV[1]) end
elseif current[3] then
  redis.call('HDEL', meta, 'confirmed')  -- writes no longer wait: everything stored is shown
end
if ARGV[4] ~= current[2] then
"""
    + _NOW_MS
    + """  redis.call('ZADD', filing, now_ms, ARGV[8])
  local labels = redis.call('HMGET', meta, 'kind', 'listed')
  return {'changed', version, labels[1], now_ms, labels[2] or '0'}
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

# KEYS: meta. A tiny write to the game (so that a WAIT after it on the same connection
# covers everything written to its node before), and the game's version as it stands.
TOUCH = Script(
    "touch",
    """#!lua
if redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return {'missing'} end
redis.call('HINCRBY', KEYS[1], 'touches', 1)
return {'ok', tonumber(redis.call('HGET', KEYS[1], 'version'))}
""",
)

# KEYS: meta, confirmations. ARGV: version. The replicas confirmed the game up to
# `version`: show it (readers wait on the confirmations stream's one entry).
CONFIRM = Script(
    "confirm",
    """#!lua
local meta, stream, version = KEYS[1], KEYS[2], tonumber(ARGV[1])
local confirmed = redis.call('HGET', meta, 'confirmed')
if not confirmed or version <= tonumber(confirmed) then return 0 end
redis.call('HSET', meta, 'confirmed', version)
local top = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
if #top > 0 and tonumber(string.match(top[1][1], '^(%d+)')) >= version then
  redis.call('DEL', stream)  -- the history went back (a failover lost versions): start over
end
redis.call('XADD', stream, 'MAXLEN', '1', version .. '-0', 'v', version)
return 1
""",
)

# KEYS: meta, filing. ARGV: game_id. A game waiting to be filed in the listing: its
# filing score (false: none pending) and its labels as they now stand.
FILING = Script(
    "filing",
    """#!lua flags=no-writes
local labels = redis.call('HMGET', KEYS[1], 'kind', 'status', 'version', 'listed')
return {redis.call('ZSCORE', KEYS[2], ARGV[1]), labels[1], labels[2], labels[3], labels[4] or '0'}
""",
)

# KEYS: filing. ARGV: game_id, score. The game was filed as of the change scored
# `score`: done, unless it changed again since (a newer score).
UNFILE = Script(
    "unfile",
    """#!lua
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 1
""",
)

# KEYS: games (hash game_id -> "<version> <status> <kind>"), seq.
# ARGV: set key prefix, game_id, exists ('1' or '0'), kind, status, version, listed ('1'
#       or '0').
# Files the game under its kind and status as of `version` (unless the index already
# holds a newer version), in filing order (given at its first filing); a listed game
# also in the `listed:` sets; a game that no longer exists leaves the listing. The set
# keys are built here from the prefix: they share the index's hash tag, so they live in
# this same slot. A game is listed or not from its creation on, so leaving a set is done
# in both families (a ZREM of a member that is not there costs nothing).
SYNC = Script(
    "sync",
    """#!lua
local games, seq, prefix, game_id = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local families = {prefix, prefix .. 'listed:'}
local function leave(kind, status, everywhere)  -- the sets of `status`; `everywhere`: all of its sets
  for _, family in ipairs(families) do
    redis.call('ZREM', family .. 'status:' .. status, game_id)
    redis.call('ZREM', family .. 'kind:' .. kind .. ':status:' .. status, game_id)
    if everywhere then
      redis.call('ZREM', family .. 'all', game_id)
      redis.call('ZREM', family .. 'kind:' .. kind, game_id)
    end
  end
end
local filed = redis.call('HGET', games, game_id)
local filed_version, filed_status, filed_kind
if filed then filed_version, filed_status, filed_kind = string.match(filed, '^(%d+) (%S+) ?(%S*)$') end
if ARGV[3] == '1' then
  local kind, status, version = ARGV[4], ARGV[5], tonumber(ARGV[6])
  if filed and tonumber(filed_version) > version then return 0 end
  local order = redis.call('ZSCORE', prefix .. 'all', game_id)
  if not order then order = redis.call('INCR', seq) end
  if filed and filed_status ~= status then leave(kind, filed_status, false) end
  local filing = {prefix}
  if ARGV[7] == '1' then filing[2] = prefix .. 'listed:' end
  for _, family in ipairs(filing) do
    redis.call('ZADD', family .. 'all', order, game_id)
    redis.call('ZADD', family .. 'kind:' .. kind, order, game_id)
    redis.call('ZADD', family .. 'status:' .. status, order, game_id)
    redis.call('ZADD', family .. 'kind:' .. kind .. ':status:' .. status, order, game_id)
  end
  redis.call('HSET', games, game_id, version .. ' ' .. status .. ' ' .. kind)
  return 1
end
if filed then
  local kind = filed_kind
  if kind == '' then kind = ARGV[4] end
  leave(kind, filed_status, true)
  redis.call('HDEL', games, game_id)
end
return 1
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

ALL = (CREATE, APPEND, READ, FIND_COMMAND, TOUCH, CONFIRM, FILING, UNFILE, SYNC, BUMP, ADMIT, MEMBERS)
