"""The live-game cache (service/app/model/live_cache.py) as its docstring promises: at
most its size of games, the least recently used dropped first (a lookup that does not
record a use changes nothing of the order), and one lock per game, the same while the
game is cached even when nobody holds it, and let go once neither is true."""

from __future__ import annotations

import gc
import weakref

from service.app.model.live_cache import LiveCache
from service.app.model.live_game import LiveGame
from service.app.observe.metrics import Metrics
from tests.support.aio import async_test
from tests.support.apps import create_request, new_app


async def live_games(count: int) -> list[LiveGame]:
    """`count` games created and loaded by a GameApp: real cached games to cache again."""
    app = new_app()
    games = []
    for _ in range(count):
        created = await app.games.create_game(create_request(), "")
        games.append(await app.live.load(created.game_id))
    return games


def cached_count(metrics: Metrics) -> float | None:
    return metrics.registry.get_sample_value("ludotheque_cached_games")


@async_test
async def test_the_least_recently_used_game_is_dropped_first() -> None:
    first, second, third = await live_games(3)
    metrics = Metrics()
    cache = LiveCache(2, metrics)
    cache.remember(first)
    cache.remember(second)
    assert cache.use(first.game_id) is first  # second is now the least recently used
    cache.remember(third)
    assert cache.get(second.game_id) is None
    assert cache.games() == [first, third]
    assert cached_count(metrics) == 2


@async_test
async def test_a_lookup_that_does_not_record_a_use_leaves_the_order_alone() -> None:
    first, second, third = await live_games(3)
    cache = LiveCache(2, Metrics())
    cache.remember(first)
    cache.remember(second)
    assert cache.get(first.game_id) is first
    cache.remember(third)
    assert cache.get(first.game_id) is None and cache.games() == [second, third]


@async_test
async def test_a_forgotten_game_is_read_again_and_counted_out() -> None:
    (game,) = await live_games(1)
    metrics = Metrics()
    cache = LiveCache(4, metrics)
    cache.remember(game)
    cache.forget(game.game_id)
    cache.forget(game.game_id)  # (twice: nothing left to forget)
    assert cache.use(game.game_id) is None and cached_count(metrics) == 0


@async_test
async def test_a_cached_game_keeps_its_lock_and_a_dropped_one_lets_it_go() -> None:
    first, second = await live_games(2)
    cache = LiveCache(1, Metrics())
    cache.remember(first)
    lock = weakref.ref(cache.lock(first.game_id))
    gc.collect()
    assert cache.lock(first.game_id) is lock()  # nobody holds it: the cache does
    cache.remember(second)  # drops the first
    gc.collect()
    assert lock() is None


@async_test
async def test_the_lock_of_a_game_not_cached_is_one_while_someone_holds_it() -> None:
    (game,) = await live_games(1)
    cache = LiveCache(1, Metrics())
    held = cache.lock(game.game_id)
    async with held:
        gc.collect()
        assert cache.lock(game.game_id) is held and cache.lock(game.game_id).locked()
        cache.remember(game)  # cached meanwhile (a move loading it): the lock it caches is the one held
    cache.forget(game.game_id)
    assert cache.lock(game.game_id) is held  # (still referred to here)
