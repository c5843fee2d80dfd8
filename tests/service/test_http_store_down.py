"""When the event store cannot be reached: UNAVAILABLE (HTTP 503), /readyz says so,
and nothing else breaks. The store here is one that is always down."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from aiohttp.test_utils import TestClient, TestServer

from service.api.http_server import build_http_app
from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.observe.instrumented import instrumented
from service.app.observe.metrics import Metrics
from service.store.base import (
    Admission,
    AppendRequest,
    AppendResult,
    GameInfo,
    GamePage,
    Keep,
    NewGame,
    ShardHealth,
    StoredEvent,
    StoredSnapshot,
    StoreHealth,
    StoreUnavailable,
)
from service.store.memory_coordination import MemoryCoordination
from tests.support.aio import async_test


class DownStore:
    """An event store whose server is unreachable."""

    def __init__(self) -> None:
        self.coordination = MemoryCoordination(self._raise_down)  # every call raises

    def _down(self) -> StoreUnavailable:
        return StoreUnavailable("connection refused")

    def _raise_down(self) -> None:
        raise self._down()

    async def create(self, game: NewGame) -> None:
        raise self._down()

    async def append(self, request: AppendRequest) -> AppendResult:
        raise self._down()

    async def find_command(self, game_id: str, command_id: str, fingerprint: bytes) -> AppendResult | None:
        raise self._down()

    async def info(self, game_id: str) -> GameInfo:
        raise self._down()

    async def read(
        self, game_id: str, from_version: int, to_version: int | None = None, *, counters_revision: int | None = None
    ) -> list[StoredEvent]:
        raise self._down()

    async def bump(self, game_id: str, name: str) -> int:
        raise self._down()

    async def list_games(
        self, kind: str, status: str, limit: int, cursor: str, *, listed_only: bool = False
    ) -> GamePage:
        raise self._down()

    async def admit(self, key: str, member: str, limit: int, now_ms: int, ttl_ms: int | None = None) -> Admission:
        raise self._down()

    async def release(self, key: str, member: str) -> None:
        raise self._down()

    async def members(self, key: str, now_ms: int) -> list[str]:
        raise self._down()

    async def put_snapshots(self, game_id: str, snapshots: Sequence[StoredSnapshot]) -> None:
        raise self._down()

    async def snapshot(self, game_id: str, at_most: int | None = None) -> StoredSnapshot | None:
        raise self._down()

    async def due_games(self, now_ms: int, limit: int) -> list[str]:
        raise self._down()

    async def keep(self, game_id: str, keep: Keep) -> None:
        raise self._down()

    async def claim(self, game_id: str, owner: str, until_ms: int, now_ms: int) -> bool:
        raise self._down()

    async def delete(self, game_id: str, version: int | None = None) -> bool:
        raise self._down()

    async def forget(self, game_id: str) -> None:
        raise self._down()

    async def subscribe(self, game_id: str, from_version: int) -> AsyncIterator[StoredEvent]:
        raise self._down()
        yield  # pragma: no cover - makes this an async generator

    async def mark_once(self, key: str, ttl_ms: int) -> bool:
        raise self._down()

    def end_subscriptions(self) -> None:
        return None

    async def ping(self) -> None:
        raise self._down()

    async def health(self) -> StoreHealth:
        return StoreHealth([ShardHealth("down", writable=False, problem="connection refused")])

    async def close(self) -> None:
        return None


@async_test
async def test_an_unreachable_store_is_a_503_with_a_google_rpc_status() -> None:
    metrics = Metrics()
    store = instrumented(DownStore(), metrics)
    app = GameApp(store, TokenAuthority(b"0123456789abcdef0123456789abcdef"), metrics=metrics)
    async with TestClient(TestServer(build_http_app(app, metrics))) as client:
        for method, path, body in (
            ("POST", "/v1/games", {"kind": "mooki", "seats": [{"name": "a"}, {"name": "b"}]}),
            ("GET", "/v1/games/g1", None),
            ("GET", "/v1/games", None),
            ("GET", "/v1/games/g1/events:stream", None),
        ):
            response = await client.request(method, path, json=body)
            assert response.status == 503, await response.text()
            error = await response.json()
            assert error["code"] == 14 and "cannot be reached" in error["message"]
        ready = await client.get("/readyz")
        assert ready.status == 503 and (await ready.json())["status"] == "not ready"
        assert (await client.get("/healthz")).status == 200  # alive all the same
        metrics_text = await (await client.get("/metrics")).text()
        assert 'ludotheque_store_errors_total{operation="info"} 2.0' in metrics_text
        # The readiness check's shard it could not write counts too: an alert sees it without traffic.
        assert 'ludotheque_store_errors_total{operation="health"} 1.0' in metrics_text
        assert 'ludotheque_redis_errors_total{reason="unavailable"}' in metrics_text
