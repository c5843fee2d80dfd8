"""The Redis store's Lua scripts. Each runs atomically on the node that owns its keys.

Game scripts touch only one game's keys (`{<game_id>}` hash tag: one cluster slot) and
the filing set of that slot. Index scripts touch only the listing index's keys
(`{index}` hash tag: another slot), so no script ever spans two slots. The `#!lua` line
makes Redis 7 refuse a writing script up front when it is out of memory, instead of failing half way through: with
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
# visible_only, also the last visible version and the last stored one. (The game's meta
# is what says it exists: a deleted game's stream lives on a little, DELETE.)
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
local current = redis.call('HMGET', meta, 'kind', 'bumps')
if not current[1] then return {'missing'} end
if revision ~= '' and (current[2] or '0') ~= revision then return {'bumped'} end
if last ~= '+' then last = last .. '-0' end
return {'ok', redis.call('XRANGE', events, first .. '-0', last)}
""",
)

# The time of Redis's clock in milliseconds, for a script.
_NOW_MS = "local now = redis.call('TIME')\nlocal now_ms = now[1] * 1000 + math.floor(now[2] / 1000)\n"

EXPIRY_SLACK_MS = 3600 * 1000

# Sets when each of a game's keys expires (`expire`: a time in ms, or 0 for never);
# keys that do not exist are left alone (a key made later takes its meta's time).
# A move asks for a time a few seconds past the last one: setting it on four keys at
# every move was most of a move's Redis commands. So an append sets a time an hour past
# the one asked (the store's own backstop, a day past the game's review: an hour more
# changes nothing) and sets none while the time set (the meta's `expires`) covers the one
# asked, and is not more than two hours past it (a shorter setting comes through).
# `expiry` says what to set (false: nothing); `kept`: the meta's `expires`.
_EXPIRE_GAME = (
    """
local function expire_game(keys, expire)
  for _, key in ipairs(keys) do
    if expire > 0 then redis.call('PEXPIREAT', key, expire) else redis.call('PERSIST', key) end
  end
end
local EXPIRY_SLACK_MS = """
    + str(EXPIRY_SLACK_MS)
    + """
local function expiry(expire, kept)
  kept = tonumber(kept or '-1')
  if expire == 0 then
    if kept == 0 then return false end
    return 0
  end
  if kept > 0 and kept >= expire and kept <= expire + 2 * EXPIRY_SLACK_MS then return false end
  return expire + EXPIRY_SLACK_MS
end
"""
)

# KEYS: meta, events, filing. ARGV: kind, status, record, summary, now_ms, pending ('1':
# writes wait for replicas, the game is shown once they confirm it), game_id, listed
# ('1' or '0'), review_at, expire_at (ms; 0: never), event...
# The same creation sent again (its record is unique) answers as the first did.
CREATE = Script(
    "create",
    """#!lua
"""
    + _EXPIRE_GAME
    + """
local meta, events, filing = KEYS[1], KEYS[2], KEYS[3]
local current = redis.call('HMGET', meta, 'kind', 'record', 'version')
if current[1] then
  if current[2] == ARGV[3] then return {'ok', tonumber(current[3]), redis.call('ZSCORE', filing, ARGV[7])} end
  return {'exists'}
end
-- What a deleted game of this id left (its last entry for live readers) goes first.
redis.call('DEL', events)
local version = 0
for i = 11, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', meta, 'kind', ARGV[1], 'status', ARGV[2], 'record', ARGV[3], 'summary', ARGV[4],
  'version', version, 'created_at', ARGV[5], 'updated_at', ARGV[5], 'listed', ARGV[8], 'review_at', ARGV[9])
if version > 0 then redis.call('HSET', meta, 'head', redis.sha1hex(ARGV[#ARGV])) end
if ARGV[6] == '1' then redis.call('HSET', meta, 'confirmed', 0) end
expire_game({meta, events}, tonumber(ARGV[10]))
"""
    + _NOW_MS
    + """redis.call('ZADD', filing, now_ms, ARGV[7])
return {'ok', version, now_ms}
""",
)

# KEYS: meta, events, commands, filing, snapshots, moves (the game's channel).
# ARGV: expected_version, command_id, command record tail (fingerprint), status, summary,
#       now_ms, pending ('1' or '0', as for CREATE), game_id, after (the SHA-1 hex of the
#       event the caller has at expected_version, or ''), counters revision ('' for
#       any), review_at, expire_at (as for CREATE), event...
# The command record is "<first> <last> <fingerprint hex>". A conflict (another version,
# or another event at that version) answers the game's version and its last visible one.
# Counters that moved on (EventStore.bump) refuse the append before anything else.
APPEND = Script(
    "append",
    """#!lua
"""
    + _EXPIRE_GAME
    + """
local meta, events, commands, filing = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local current = redis.call('HMGET', meta, 'version', 'status', 'confirmed', 'bumps', 'head', 'expires')
if not current[1] then return {'missing'} end
if ARGV[10] ~= '' and (current[4] or '0') ~= ARGV[10] then return {'bumped'} end
local known = redis.call('HGET', commands, ARGV[2])
if known then return {'known', known} end
local version = tonumber(current[1])
local conflict = {'conflict', version, tonumber(current[3] or current[1])}
if version ~= tonumber(ARGV[1]) then return conflict end
if ARGV[9] ~= '' and version > 0 then
  local head = current[5]  -- the SHA-1 of the last event (a game stored before it was kept: read it)
  if not head then
    local entry = redis.call('XRANGE', events, version .. '-0', version .. '-0')
    head = #entry > 0 and redis.sha1hex(entry[1][2][2]) or ''
  end
  if head ~= ARGV[9] then return conflict end
end
local first = version + 1
for i = 13, #ARGV do
  version = version + 1
  redis.call('XADD', events, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', commands, ARGV[2], first .. ' ' .. version .. ' ' .. ARGV[3])
local fields = {'version', version, 'status', ARGV[4], 'summary', ARGV[5], 'updated_at', ARGV[6],
  'review_at', ARGV[11]}
if #ARGV >= 13 then table.insert(fields, 'head'); table.insert(fields, redis.sha1hex(ARGV[#ARGV])) end
local expires = expiry(tonumber(ARGV[12]), current[6])
if expires then table.insert(fields, 'expires'); table.insert(fields, expires) end
redis.call('HSET', meta, unpack(fields))
if expires then expire_game({meta, events, commands, KEYS[5]}, expires) end
if ARGV[7] == '1' then
  -- a game stored before writes waited for replicas: all it had is shown
  if not current[3] then redis.call('HSET', meta, 'confirmed', ARGV[1]) end
else
  if current[3] then
    redis.call('HDEL', meta, 'confirmed')  -- writes no longer wait: everything stored is shown
  end
  -- Shown at once: the processes following the game hear it moved (redis_live.py).
  redis.call('SPUBLISH', KEYS[6], version)
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

# KEYS: meta, moves (the game's channel). ARGV: version. The replicas confirmed the game
# up to `version`: show it, and tell the processes following the game (redis_live.py).
CONFIRM = Script(
    "confirm",
    """#!lua
local meta, version = KEYS[1], tonumber(ARGV[1])
local confirmed = redis.call('HGET', meta, 'confirmed')
if not confirmed or version <= tonumber(confirmed) then return 0 end
redis.call('HSET', meta, 'confirmed', version)
redis.call('SPUBLISH', KEYS[2], version)
return 1
""",
)

# KEYS: meta, filing. ARGV: game_id. A game waiting to be filed in the listing: its
# filing score (false: none pending) and its labels as they now stand (with its next
# review).
FILING = Script(
    "filing",
    """#!lua flags=no-writes
local labels = redis.call('HMGET', KEYS[1], 'kind', 'status', 'version', 'listed', 'review_at')
return {redis.call('ZSCORE', KEYS[2], ARGV[1]), labels[1], labels[2], labels[3], labels[4] or '0', labels[5] or '0'}
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
#       or '0'), review_at (ms; 0: none).
# Files the game under its kind and status as of `version` (unless the index already
# holds a newer version), in filing order (given at its first filing), and schedules its
# next review (the `due` set, for retention); a listed game also in the `listed:` sets;
# a game that no longer exists leaves the listing and the schedule. The set
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
  if tonumber(ARGV[8]) > 0 then
    redis.call('ZADD', prefix .. 'due', ARGV[8], game_id)
  else
    redis.call('ZREM', prefix .. 'due', game_id)
  end
  return 1
end
redis.call('ZREM', prefix .. 'due', game_id)
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

# KEYS: every key of the game (Keys.of_game: meta first). ARGV: review_at, expire_at.
# How long a game is kept, after a review (the index's schedule is set apart: SCHEDULE).
KEEP = Script(
    "keep",
    """#!lua
"""
    + _EXPIRE_GAME
    + """
if redis.call('HEXISTS', KEYS[1], 'kind') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'review_at', ARGV[1], 'expires', ARGV[2])
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

# KEYS: every key of the game (Keys.of_game: meta, events, commands, snapshots), then its
# moves channel. ARGV: the version the game must still be at ('': any), how long (ms)
# its events stream stays for live followers. Deletes the game; a game at another
# version answers that version and its last confirmed one. Its events stream goes last,
# with an entry past its last version that has no event (field 'x'), and the processes
# following it are told ('x' on its channel): they end its followers.
DELETE = Script(
    "delete",
    """#!lua
local meta, events, moves = KEYS[1], KEYS[2], KEYS[5]
local current = redis.call('HMGET', meta, 'kind', 'version', 'confirmed')
if not current[1] then return {'missing'} end
local version = tonumber(current[2])
if ARGV[1] ~= '' and version ~= tonumber(ARGV[1]) then return {'moved', version, tonumber(current[3] or version)} end
redis.call('DEL', meta, KEYS[3], KEYS[4])
redis.call('XADD', events, (version + 1) .. '-0', 'x', '1')
redis.call('PEXPIRE', events, ARGV[2])
redis.call('SPUBLISH', moves, 'x')
return {'ok'}
""",
)

# KEYS: due. ARGV: now_ms, limit. The games whose review time has come, the earliest first.
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
    TOUCH,
    CONFIRM,
    FILING,
    UNFILE,
    SYNC,
    BUMP,
    ADMIT,
    MEMBERS,
    PUT_SNAPSHOTS,
    SNAPSHOT,
    KEEP,
    SCHEDULE,
    CLAIM,
    DELETE,
    DUE_GAMES,
)
