"""The memory store's retention (base.GameKeeping: due_games, keep, claim, delete,
forget): each game's review time, one owner at a time claiming a game to expire it,
and deleting it. The memory store never drops a game by itself: the service's
retention sweeps (service/app/keeping/retention.py) delete the games due."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.store.base import Keep

if TYPE_CHECKING:
    from service.store.memory import MemoryGame


class MemoryKeeping:
    """MemoryStore's retention methods."""

    _games: dict[str, MemoryGame]

    if TYPE_CHECKING:  # MemoryStore's own

        def _check_open(self) -> None: ...

        def _game(self, game_id: str) -> MemoryGame: ...

    async def due_games(self, now_ms: int, limit: int) -> list[str]:
        self._check_open()
        due = [(g.keep.review_at_ms, g.sequence, g.written.game_id) for g in self._games.values()]
        return [game_id for review_at, _, game_id in sorted(due) if 0 < review_at <= now_ms][:limit]

    async def keep(self, game_id: str, keep: Keep) -> None:
        self._game(game_id).keep = keep

    async def claim(self, game_id: str, owner: str, until_ms: int, now_ms: int) -> bool:
        game = self._game(game_id)
        if game.claim is not None and game.claim[0] != owner and game.claim[1] > now_ms:
            return False
        game.claim = (owner, until_ms)
        return True

    async def delete(self, game_id: str, version: int | None = None) -> bool:
        game = self._game(game_id)
        if version is not None and game.info.version != version:
            return False
        del self._games[game_id]
        game.deleted = True
        game.appended.set()  # its subscribers end
        return True

    async def forget(self, game_id: str) -> None:
        self._check_open()  # a game this store deletes is unlisted at once
