"""The snapshots' contract (base.SnapshotStore), which every store passes: the snapshot
kept nearest at or before a version is found, one per version, none for a game gone
(the `store_factory` fixture gives one store per backend)."""

from __future__ import annotations

import pytest

from service.store.base import (
    GameNotFound,
    StoredSnapshot,
)
from tests.support.aio import async_test
from tests.support.stores import StoreFactory, create_stored_game


@async_test
async def test_the_snapshot_kept_nearest_at_or_before_a_version_is_found(store_factory: StoreFactory) -> None:
    async with store_factory() as store:
        await create_stored_game(store, events=3)
        assert await store.snapshot("g1") is None
        await store.put_snapshots("g1", [StoredSnapshot(100, b"at 100"), StoredSnapshot(200, b"at\x00200")])
        await store.put_snapshots("g1", [StoredSnapshot(150, b"at 150")])
        await store.put_snapshots("g1", [StoredSnapshot(100, b"again at 100")])  # replaces
        assert await store.snapshot("g1") == StoredSnapshot(200, b"at\x00200")
        assert await store.snapshot("g1", 199) == StoredSnapshot(150, b"at 150")
        assert await store.snapshot("g1", 149) == StoredSnapshot(100, b"again at 100")
        assert await store.snapshot("g1", 99) is None
        with pytest.raises(GameNotFound):
            await store.snapshot("nope")
        await store.put_snapshots("nope", [StoredSnapshot(1, b"orphan")])  # kept nowhere
        with pytest.raises(GameNotFound):
            await store.info("nope")
