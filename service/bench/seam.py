"""The one place the benchmarks reach inside the service: what they build, read or
count in their own process that the public API does not offer.

Every other benchmark module reaches the service through its public API only: a
real server (target.py) over the generated clients (gRPC, HTTP, WebSocket), or an
in-process `GameApp` built here and called through its public families (`games`,
`moves`, `history`) as service/api/rpcs.py calls them. The engines (`engines/`) are
a public contract of their own and are imported directly. A refactor of service/app,
service/store, service/api or service/cli that breaks a benchmark breaks this file
alone; tests/tooling/test_bench_seam.py fails when another bench module imports
those packages.

What is here, and why the public API does not do it:
- `in_process_app` and `memory_store`: GameApp alone (no transport) on a memory store,
  with the few settings a micro-benchmark fixes (snapshots, event limits, the seed, the
  bots that choose in the heavy workers and who plays the bots: bots_beside.py's, which
  think longer);
- `event_envelope`, `command_envelope`, `as_stored`, `stored_payloads`,
  `decision_rng`, `english_words`: an engine's events as the server stores them,
  read back as ReplayGame reads them, a decision's randomness as GameApp draws it,
  and the English catalog the answers are described with (micro.py's engine's own
  work and replay, measured without GameApp around them);
- `RecordingStore`, `CountingConnection`, `redis_store` and the `*_again` calls: the
  store alone (store_cost.py), its writes recorded from GameApp and made again;
- `edge_call`, `tracing_enabled`, `configure_tracing`, `shutdown_tracing`,
  `log_to`: the request edge every transport wraps a call in, and the server's
  tracing and logging set-up (observation.py);
- `JOIN_CODE_ALPHABET`, `JOIN_CODE_LENGTH`: what a join code is made of, for the
  attack that guesses them (attacks.py)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TextIO

from ludotheque.v1 import game_pb2

from service.api.edge import observed
from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.game_app import Settings, World
from service.app.model import envelopes, snapshots
from service.app.model.bot_choices import FindBot, engine_bot
from service.app.model.heavy_reads import HeavySettings
from service.app.model.lazy_random import LazyRandom
from service.app.model.seeding import DECIDE, game_rng
from service.app.observe import tracing
from service.app.observe.instrumented import instrumented
from service.app.observe.metrics import Metrics
from service.app.online.join_codes import ALPHABET as JOIN_CODE_ALPHABET
from service.app.online.join_codes import LENGTH as JOIN_CODE_LENGTH
from service.app.words.catalogs import Words, catalogs
from service.cli import log_setup, telemetry
from service.store.base import AppendRequest, AppendResult, EventStore, NewGame, StoredEvent
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from service.store.redis_client import RedisConnection
from service.store.redis_lua import Script

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import SpanProcessor

__all__ = [
    "DEFAULT_SNAPSHOT_INTERVAL",
    "JOIN_CODE_ALPHABET",
    "JOIN_CODE_LENGTH",
    "BenchStore",
    "CountingConnection",
    "GameApp",
    "RecordedGame",
    "RecordingStore",
    "append_again",
    "as_stored",
    "close_store",
    "command_envelope",
    "configure_tracing",
    "create_again",
    "decision_rng",
    "edge_call",
    "english_words",
    "event_envelope",
    "follow",
    "in_process_app",
    "log_to",
    "memory_store",
    "redis_store",
    "shutdown_tracing",
    "stored_payloads",
    "tracing_enabled",
]

BenchStore = EventStore  # what in_process_app plays on and store_cost.py measures
DEFAULT_SNAPSHOT_INTERVAL = Settings().snapshot_interval  # the server's, unless configured
_SECRET = b"bench-secret-0123456789abcdef-0123456789"  # signs the in-process apps' tokens


# --- GameApp alone -----------------------------------------------------------------


def memory_store() -> BenchStore:
    return MemoryStore()


def in_process_app(
    store: BenchStore | None = None,
    *,
    admin: str | None = None,
    metrics: bool = False,
    snapshot_interval: int | None = None,
    event_limits: Mapping[str, int] | None = None,
    seed: int | None = None,
    heavy_bots: frozenset[str] | None = None,
    find_bot: FindBot = engine_bot,
) -> GameApp:
    """GameApp on `store` (a fresh memory store by default), no transport. `admin`: the
    admin token; `metrics`: the store's operations timed, as a server's are;
    `snapshot_interval`, `event_limits`, `heavy_bots`: as the server's flags set them (its
    defaults otherwise); `seed`: every game's secret seed (a game played again the same);
    `find_bot`: who plays a game's bot, by kind and name (a module's function; the
    engines' bots by default)."""
    metered = Metrics()
    store = store if store is not None else MemoryStore()
    settings: dict[str, Any] = {}
    if snapshot_interval is not None:
        settings["snapshot_interval"] = snapshot_interval
    if event_limits is not None:
        settings["event_limits"] = dict(event_limits)
    if heavy_bots is not None:
        settings["heavy"] = replace(HeavySettings(), bots=heavy_bots)
    world = World(new_seed=lambda: seed) if seed is not None else None
    return GameApp(
        instrumented(store, metered) if metrics else store,
        TokenAuthority(_SECRET, admin) if admin is not None else TokenAuthority(_SECRET),
        Settings(**settings),
        world=world,
        metrics=metered,
        find_bot=find_bot,
    )


# --- an engine's events as the server stores them ------------------------------------


def event_envelope(kind: str, payload: Any) -> game_pb2.Event:
    """An `Event` holding a `kind` game's event payload, as the server stores one."""
    return envelopes.wrap(game_pb2.Event, kind, payload)


def command_envelope(kind: str, command: Any) -> game_pb2.Command:
    return envelopes.command(kind, command)


def as_stored(blobs: Sequence[bytes]) -> list[StoredEvent]:
    """A game's encoded events as the store returns them (versions from 1)."""
    return [StoredEvent(version, blob) for version, blob in enumerate(blobs, 1)]


def stored_payloads(stored: Sequence[StoredEvent], kind: str) -> list[Any]:
    """The engine payloads of stored events, parsed as ReplayGame parses them."""
    return snapshots.payloads(stored, kind)


def decision_rng(seed: int) -> random.Random:
    """A decision's randomness as GameApp gives it: seeded on its first draw."""
    return LazyRandom(lambda: game_rng(seed, DECIDE, 0))


def english_words() -> Words:
    """The English catalog, as an answer's descriptions are rendered with it."""
    return catalogs().words("")


# --- the store alone -----------------------------------------------------------------


@dataclass(slots=True)
class RecordedGame:
    creation: NewGame | None = None
    appends: list[AppendRequest] = field(default_factory=list)
    version: int = 0  # the last version stored


class RecordingStore(MemoryStore):
    """A memory store that remembers what GameApp asked it to write (each write as
    given, its events copied: the caller's own), so that they are made again as they were."""

    def __init__(self) -> None:
        super().__init__()
        self.games: dict[str, RecordedGame] = {}

    async def create(self, game: NewGame) -> None:
        await super().create(game)
        recorded = self.games.setdefault(game.game_id, RecordedGame())
        recorded.creation = replace(game, events=list(game.events))
        recorded.version = (await self.info(game.game_id)).version

    async def append(self, request: AppendRequest) -> AppendResult:
        result = await super().append(request)
        recorded = self.games[request.game_id]
        recorded.appends.append(replace(request, events=list(request.events)))
        recorded.version = result.last_version
        return result


async def create_again(store: BenchStore, game_id: str, game: RecordedGame) -> None:
    """Makes the recorded game's creation again, under `game_id`."""
    assert game.creation is not None
    await store.create(replace(game.creation, game_id=game_id))


async def append_again(store: BenchStore, game_id: str, request: AppendRequest) -> None:
    """Makes a recorded append again, to the game `game_id`."""
    await store.append(replace(request, game_id=game_id))


async def follow(store: BenchStore, game_id: str, last: int) -> None:
    """Reads the game's events from version 1 (stored, then live) until version `last`."""
    async for event in store.subscribe(game_id, 1):
        if event.version >= last:
            return


async def close_store(store: BenchStore) -> None:
    await store.close()


class CountingConnection(RedisConnection):
    """Counts the round trips the store makes (a pipeline of reads is one)."""

    round_trips = 0

    async def call(self, *command: Any) -> Any:
        self.round_trips += 1
        return await super().call(*command)

    async def write(self, *command: Any) -> Any:
        self.round_trips += 1
        return await super().write(*command)

    async def run(self, script: Script, keys: Sequence[str], args: Sequence[Any], *, durable: bool = False) -> Any:
        self.round_trips += 1
        return await super().run(script, keys, args, durable=durable)

    async def read_many(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        self.round_trips += 1 if commands else 0
        return await super().read_many(commands)


def redis_store(url: str) -> tuple[BenchStore, CountingConnection]:
    """The Redis store on `url`, its round trips counted; no reconciliation running."""
    connection = CountingConnection.from_url(url)
    assert isinstance(connection, CountingConnection)
    return RedisStore(connection, reconcile_interval=0), connection


# --- what observing a call costs -----------------------------------------------------


def edge_call(transport: str, method: str) -> AbstractContextManager[Any]:
    """The request edge every transport wraps a call in (its access log line, its
    request context), for a call without headers; `.ended(code, error=...)` ends it."""
    return observed(transport, method, lambda name: None)


def tracing_enabled() -> bool:
    return tracing.enabled()


def configure_tracing(processor: SpanProcessor) -> None:
    """Tracing on, as the server turns it on, its spans handed to `processor`
    (sampling as OTEL_TRACES_SAMPLER and its argument say)."""
    telemetry.configure({}, processor=processor)


def shutdown_tracing() -> None:
    telemetry.shutdown()


def log_to(level: str, stream: TextIO) -> None:
    """The server's logging, as JSON lines to `stream`, at `level`."""
    log_setup.configure_logging(level, "json", stream=stream)
