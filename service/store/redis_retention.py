"""The Redis store's part of retention (service/app/keeping/retention.py): how long each game is
kept, the games due for review, one process at a time claiming a game to expire it, and
deleting a game, every key of it at once.

Every write sets when each key of the game expires (redis_lua: CREATE, APPEND, KEEP), a
backstop should no server ever review it; reviews are scheduled in the listing index's
`due` set (redis_index.py). A deleted game leaves its events stream a minute longer
with one last entry that holds no event, so that the live readers of every process end
its followers (redis_live.py), and leaves the listing and the schedule through the
index (`GameIndex.unlist`, repaired by the reconciler when the index is down)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.store.base import GameNotFound, Keep
from service.store.redis_client import RedisConnection
from service.store.redis_index import GameIndex
from service.store.redis_keys import Keys
from service.store.redis_live import LiveReader
from service.store.redis_lua import CLAIM, DELETE, KEEP

# A deleted game's stream stays this long (ms) with its last entry, so that the live
# readers of every process end its followers (redis_lua.DELETE).
TOMBSTONE_MS = 60_000


class RedisRetention:
    """RedisStore's retention (base.GameKeeping: due_games, keep, claim, delete, forget)."""

    redis: RedisConnection
    keys: Keys
    index: GameIndex
    _live: LiveReader

    if TYPE_CHECKING:  # RedisStore's own

        def _check_open(self) -> None: ...

        async def confirm(self, game_id: str) -> int: ...

    async def due_games(self, now_ms: int, limit: int) -> list[str]:
        self._check_open()
        return await self.index.due(now_ms, limit)

    async def keep(self, game_id: str, keep: Keep) -> None:
        self._check_open()
        if not await self.redis.run(KEEP, self.keys.of_game(game_id), [keep.review_at_ms, keep.expire_at_ms]):
            raise GameNotFound(game_id)
        await self.index.schedule(game_id, keep.review_at_ms)

    async def claim(self, game_id: str, owner: str, until_ms: int, now_ms: int) -> bool:
        self._check_open()
        claimed = int(await self.redis.run(CLAIM, [self.keys.meta(game_id)], [owner, until_ms, now_ms]))
        if claimed < 0:
            raise GameNotFound(game_id)
        return claimed == 1

    async def delete(self, game_id: str, version: int | None = None) -> bool:
        self._check_open()
        expected = "" if version is None else version
        keys = [*self.keys.of_game(game_id), self.keys.moves(game_id)]
        reply = await self.redis.run(DELETE, keys, [expected, TOMBSTONE_MS], durable=True)
        if reply[0] == b"missing":
            raise GameNotFound(game_id)
        if reply[0] == b"moved":
            if int(reply[1]) > int(reply[2]):
                # Versions its replicas never confirmed (a write whose WAIT failed): they
                # count as moves once confirmed, and the caller looks again.
                await self.confirm(game_id)
            return False
        self._live.end_game(game_id, GameNotFound(game_id))  # the live readers would too, within a read
        await self.index.unlist(game_id)
        return True

    async def forget(self, game_id: str) -> None:
        self._check_open()
        await self.index.settle(game_id)  # files it as it stands: a game gone leaves the listing
