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
# finds no new event most of the time, and asking apart doubled its cost. (A deleted
# game's stream lives on a little with a last entry for live followers: DELETE.)
READ = Script(
    "read",
    """#!lua flags=no-writes
if redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return {'missing'} end
return {'ok', redis.call('XRANGE', KEYS[2], ARGV[1], ARGV[2])}
""",
)

# Sets when every key of a game expires (`expire`: a time in ms, or 0 for never).
EXPIRE_GAME = """
local function expire_game(keys, expire)
  for _, key in ipairs(keys) do
    if expire > 0 then redis.call('PEXPIREAT', key, expire) else redis.call('PERSIST', key) end
  end
end
"""

# KEYS: meta, events. ARGV: kind, status, record, summary, now_ms, token, review_at,
# expire_at, event...
CREATE = Script(
    "create",
    """#!lua
"""
    + EXPIRE_GAME
    + """
local meta, events = KEYS[1], KEYS[2]
local current = redis.call('HMGET', meta, 'kind', 'fenced')
if current[1] then return {'exists'} end
local token = ARGV[6]
if current[2] and tonumber(token) <= tonumber(current[2]) then return {'fenced'} end
local version = 0
for i = 9, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', meta, 'kind', ARGV[1], 'status', ARGV[2], 'record', ARGV[3], 'summary', ARGV[4],
  'version', version, 'created_at', ARGV[5], 'updated_at', ARGV[5], 'seq', token, 'status_token', token,
  'review_at', ARGV[7])
expire_game({meta, events}, tonumber(ARGV[8]))
return {'ok', version}
""",
)

# KEYS: meta, events, commands, snapshots.
# ARGV: expected_version, command_id, command record tail (fingerprint), status, summary,
#       now_ms, token ('' when the caller holds no intent), review_at, expire_at, event...
# The command record is "<first> <last> <fingerprint hex>".
APPEND = Script(
    "append",
    """#!lua
"""
    + EXPIRE_GAME
    + """
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
for i = 10, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', commands, ARGV[2], first .. ' ' .. version .. ' ' .. ARGV[3])
redis.call('HSET', meta, 'version', version, 'status', status, 'summary', ARGV[5], 'updated_at', ARGV[6],
  'review_at', ARGV[8])
expire_game({meta, events, commands, KEYS[4]}, tonumber(ARGV[9]))
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

# KEYS: meta. ARGV: token, how long (ms) the fence of a missing game stays. Settles an
# intent on the game's side: if the write that carried `token` landed, nothing changes;
# otherwise it never will (every token up to this one is refused from now on). Returns
# the game's labels as they now stand, and when it is due for review.
FENCE = Script(
    "fence",
    """#!lua
local meta, token = KEYS[1], ARGV[1]
local current = redis.call('HMGET', meta, 'kind', 'status', 'version', 'seq', 'status_token', 'fenced', 'review_at')
if current[5] ~= token and (not current[6] or tonumber(current[6]) < tonumber(token)) then
  redis.call('HSET', meta, 'fenced', token)
end
if not current[1] then
  -- The fence of a game that does not exist (any more): it need not outlive any writer.
  redis.call('PEXPIRE', meta, ARGV[2])
  return {'missing'}
end
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
#       version, seq, review_at.
# Files the game under its kind and status as of `version` (unless the index already
# holds a newer version), schedules its review (the `due` set; 0: none) and drops the
# pending intent. The kinds and statuses ever filed are remembered, so that a game can
# be unlisted without knowing its labels (UNLIST). The set keys are built here from the
# prefix: they share the index's hash tag, so they live in this same slot.
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
    redis.call('SADD', prefix .. 'kinds', kind)
    redis.call('SADD', prefix .. 'statuses', status)
    if tonumber(ARGV[9]) > 0 then
      redis.call('ZADD', prefix .. 'due', ARGV[9], game_id)
    else
      redis.call('ZREM', prefix .. 'due', game_id)
    end
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

# KEYS: games (hash game_id -> "<version> <status>"). ARGV: set key prefix, game_id.
# Unlists a game from every set it may be in (every kind and status ever filed) and
# from the review schedule.
UNLIST = Script(
    "unlist",
    """#!lua
local prefix, game_id = ARGV[1], ARGV[2]
local kinds = redis.call('SMEMBERS', prefix .. 'kinds')
local statuses = redis.call('SMEMBERS', prefix .. 'statuses')
redis.call('ZREM', prefix .. 'all', game_id)
for _, status in ipairs(statuses) do redis.call('ZREM', prefix .. 'status:' .. status, game_id) end
for _, kind in ipairs(kinds) do
  redis.call('ZREM', prefix .. 'kind:' .. kind, game_id)
  for _, status in ipairs(statuses) do
    redis.call('ZREM', prefix .. 'kind:' .. kind .. ':status:' .. status, game_id)
  end
end
redis.call('HDEL', KEYS[1], game_id)
redis.call('ZREM', prefix .. 'due', game_id)
return 1
""",
)

# KEYS: meta, events, commands, snapshots. ARGV: review_at, expire_at. How long a game
# is kept, after a review (the index's schedule is set apart: SCHEDULE).
KEEP = Script(
    "keep",
    """#!lua
"""
    + EXPIRE_GAME
    + """
if redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'review_at', ARGV[1])
expire_game(KEYS, tonumber(ARGV[2]))
return 1
""",
)

# KEYS: due. ARGV: game_id, review_at (0: none).
SCHEDULE = Script(
    "schedule",
    """#!lua
if tonumber(ARGV[2]) > 0 then return redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1]) end
return redis.call('ZREM', KEYS[1], ARGV[1])
""",
)

# KEYS: meta. ARGV: owner, until_ms, now_ms. Claims the game for `owner` (who is to
# expire it) unless another owner's claim lasts past now.
CLAIM = Script(
    "claim",
    """#!lua
if redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return -1 end
local claim = redis.call('HGET', KEYS[1], 'claim')
if claim then
  local holder, until_ms = string.match(claim, '^(%S+) (%d+)$')
  if holder ~= ARGV[1] and tonumber(until_ms) > tonumber(ARGV[3]) then return 0 end
end
redis.call('HSET', KEYS[1], 'claim', ARGV[1] .. ' ' .. ARGV[2])
return 1
""",
)

# KEYS: meta, events, commands, snapshots. ARGV: the version the game must still be at
# ('' : any), how long (ms) its stream stays for live followers. Deletes the game. Its
# stream goes last, with an entry past its last version that has no event (field 'x'):
# the live readers of every process end the game's followers when they read it.
DELETE = Script(
    "delete",
    """#!lua
local meta, events = KEYS[1], KEYS[2]
local current = redis.call('HMGET', meta, 'kind', 'version')
if not current[1] then return {'missing'} end
if ARGV[1] ~= '' and tonumber(current[2]) ~= tonumber(ARGV[1]) then return {'moved', current[2]} end
redis.call('DEL', meta, KEYS[3], KEYS[4])
redis.call('XADD', events, (tonumber(current[2]) + 1) .. '-0', 'x', '1')
redis.call('PEXPIRE', events, ARGV[2])
return {'ok'}
""",
)

# KEYS: due. ARGV: now_ms, limit. The games whose review time has come.
DUE_GAMES = Script(
    "due_games",
    """#!lua flags=no-writes
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
""",
)

ALL = (
    CREATE,
    APPEND,
    READ,
    FIND_COMMAND,
    FENCE,
    INTENT,
    SYNC,
    DUE_INTENTS,
    PUT_SNAPSHOTS,
    SNAPSHOT,
    UNLIST,
    KEEP,
    SCHEDULE,
    CLAIM,
    DELETE,
    DUE_GAMES,
)
