"""The games this process keeps in memory (`LiveCache`), least recently used dropped
first, and one lock per game, which serialises its moves inside the process."""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict

from service.app.model.live_game import LiveGame
from service.app.observe.metrics import Metrics


class LiveCache:
    """At most `size` live games, each with its lock (held while the game is cached: a
    lock nobody holds would be dropped after each move and made again for the next);
    the lock of a game not cached lives while someone holds it."""

    def __init__(self, size: int, metrics: Metrics) -> None:
        self._size = size
        self._metrics = metrics
        self._games: OrderedDict[str, tuple[LiveGame, asyncio.Lock]] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def use(self, game_id: str) -> LiveGame | None:
        """The game if cached, its use recorded (the last to be dropped)."""
        cached = self._games.get(game_id)
        if cached is None:
            return None
        self._games.move_to_end(game_id)
        return cached[0]

    def get(self, game_id: str) -> LiveGame | None:
        """The game if cached (its use unrecorded)."""
        cached = self._games.get(game_id)
        return None if cached is None else cached[0]

    def games(self) -> list[LiveGame]:
        """Every cached game, least recently used first."""
        return [live for live, _ in self._games.values()]

    def remember(self, live: LiveGame) -> None:
        """Caches the game (the last to be dropped), dropping the least recently used
        past the cache's size."""
        self._games[live.game_id] = (live, self.lock(live.game_id))
        self._games.move_to_end(live.game_id)
        while len(self._games) > self._size:
            self._games.popitem(last=False)
        self._metrics.cached_games.set(len(self._games))

    def forget(self, game_id: str) -> None:
        """Drops a cached game (deleted, or to be read from the store at its next use)."""
        self._games.pop(game_id, None)
        self._metrics.cached_games.set(len(self._games))

    def lock(self, game_id: str) -> asyncio.Lock:
        """The game's lock, cached or not."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock
