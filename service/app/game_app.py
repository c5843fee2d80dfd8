"""GameApp: every use case of the service, behind one object, independent of any transport.

The use cases live in their families (service/app/<family>/), each built whole here
and reached through GameApp's attribute of that name: `games` (create, read, list),
`moves` (a seat's command), `hints` (a seat's hint, GetHint), `history` (events listed, streamed, followed, replayed),
`tickets`, `logs` and `log_replays`, `seats` (token rotation), `retention`
(DeleteGame), `kinds`, `seating` (join, leave, start, play again), `quick_matches`
and `takeovers`; `service/api/rpcs.py` names which one answers each RPC. They share one store, one
live-game cache (`live`), one token authority and the parts of playing online
(`online`: presence, join codes, the clocks' schedule). Moves on one game are
serialised inside this process; between processes the store's compare-and-set append
decides, and a loser catches up and decides again. start() and stop() run the
background work: presence leases and notices, and the worker that fires the turn
clocks' timeouts. What a Play session needs of a game it holds open is here too."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from engines.contract import Viewer
from engines.registry import ENGINES, GAMES
from service.app.access.auth import TokenAuthority
from service.app.access.creators import CreationPolicy, OpenCreation
from service.app.access.kit import Kit
from service.app.access.limits import NO_LIMITS, CreationLimits, Quotas
from service.app.access.origins import ClientAddresses
from service.app.access.tickets import StreamTickets
from service.app.access.viewers import Viewers
from service.app.games.games import Games, random_game_id
from service.app.games.hints import Hints, HintSettings
from service.app.games.seats import Seats
from service.app.history.history import DEFAULT_MAX_CLIENT_FOLLOWERS, DEFAULT_MAX_FOLLOWERS, History
from service.app.keeping.losses import Losses
from service.app.keeping.retention import Retention, RetentionPolicy
from service.app.logs.exports import ExportCache, ExportSettings
from service.app.logs.log_replay import LogReplays
from service.app.logs.logs import Logs
from service.app.model import claims
from service.app.model.bot_choices import BotChoices, FindBot, engine_bot
from service.app.model.errors import unavailable
from service.app.model.heavy_reads import HeavyReads, HeavySettings
from service.app.model.live import LiveGames
from service.app.model.live_game import LiveGame
from service.app.model.snapshots import DEFAULT_EVERY, Snapshots
from service.app.moves.append import Appends
from service.app.moves.moves import Moves
from service.app.moves.table_changes import TableChanges
from service.app.moves.writer import Writer
from service.app.observe.metrics import Metrics
from service.app.observe.readiness import StoreWatch
from service.app.online.clocks import ClockWorker
from service.app.online.online import Online
from service.app.online.presence import Sighting
from service.app.tables.quick_match import BOTS_DUE, QuickMatches
from service.app.tables.seating import Seating
from service.app.tables.takeover import TakeOvers
from service.app.views.descriptions import Audience
from service.app.views.kinds import Kinds
from service.app.views.views import legal_commands, shown, view
from service.settings import at_least, converted, setting
from service.store.base import EventStore


def parse_event_limits(text: str) -> dict[str, int]:
    """--max-game-events ("pirates=20000,picnic=5000") as {kind: limit}; ValueError says
    what is wrong. Any kind of `GAMES` may be named: the examples are served only when
    asked for, which is decided after the settings are read."""
    limits: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, _, count = item.partition("=")
        kind, count = kind.strip(), count.strip()
        if kind not in GAMES:
            raise ValueError(f"unknown kind {kind!r} (known: {', '.join(sorted(GAMES))})")
        if not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise ValueError(f"{kind}'s limit must be a number of events, at least 1")
        limits[kind] = int(count)
    return limits


def show_event_limits(limits: Mapping[str, int]) -> str:
    return ",".join(f"{kind}={limit}" for kind, limit in limits.items())


@dataclass(frozen=True, slots=True)
class Settings:
    """How this server plays, as its configuration says (`ludotheque serve`'s flags and
    LUDOTHEQUE_* variables, read by service/settings.py); `Settings()`: a server's
    defaults, with no creation limits."""

    cache_size: int = setting(10_000, "live games kept in memory")
    max_conflict_retries: int = 8  # decisions made again after another process moved first
    memory_threshold: float = setting(
        0.9,
        "Redis store: readiness fails while a Redis master uses more than this fraction of its maxmemory",
        name="redis_memory_threshold",
    )
    event_limits: Mapping[str, int] = converted(  # per kind; default: its engine's
        "",
        "the most events a game may have, per kind, e.g. 'pirates=20000,picnic=5000': a game that "
        "reaches its limit unfinished is stopped, won by nobody. Unnamed kinds: their default "
        f"({', '.join(f'{kind} {engine.default_event_limit}' for kind, engine in sorted(ENGINES.items()))})",
        parse=parse_event_limits,
        show=show_event_limits,
        name="max_game_events",
    )
    snapshot_interval: int = setting(
        DEFAULT_EVERY,
        "events between two snapshots of a game's state, kept in the store: reading a game (a cold "
        "load, a replay at a version, a catch-up) folds at most about this many events; 0: no snapshots",
        check=at_least(0),
    )
    retention: RetentionPolicy = field(default_factory=RetentionPolicy)
    heavy: HeavySettings = field(default_factory=HeavySettings)  # heavy reads' worker processes
    exports: ExportSettings = field(default_factory=ExportSettings)
    hints: HintSettings = field(default_factory=HintSettings)  # GetHint's rates
    limits: CreationLimits = NO_LIMITS
    max_followers: int = setting(  # spectators following one game in this process
        DEFAULT_MAX_FOLLOWERS,
        "spectators following one game live in one server process (StreamEvents, server-sent events, "
        "Connect); its seats and the admin are not counted, and always let in",
        name="max_followers_per_game",
        check=at_least(0),
    )
    max_client_followers: int = setting(
        DEFAULT_MAX_CLIENT_FOLLOWERS,
        "event streams and Play sessions one client address (an IPv6 client by its /64) may have open at once "
        "in one server process, on any games; past it RESOURCE_EXHAUSTED (HTTP 429). The admin is not counted; "
        "0: no limit",
        name="max_followers_per_client",
        check=at_least(0),
    )
    stream_ticket_ttl: float = setting(60.0, "seconds a stream ticket (IssueStreamTicket) may be used in")
    play_join_timeout: float = setting(
        10.0,
        "seconds a Play session (gRPC or WebSocket) has to send its join; then it ends with DEADLINE_EXCEEDED",
    )
    presence_ttl: float = setting(
        15.0,
        "seconds a seat stays online after its process last renewed its Play session's presence "
        "(renewed every third of it): a process that dies takes its seats offline within this",
    )
    clock_interval: float = setting(
        1.0,
        "seconds between two looks at the turn clocks' schedule: a timeout is played at most this late",
    )

    def __post_init__(self) -> None:
        if self.presence_ttl <= 0 or self.clock_interval <= 0:
            raise ValueError("the presence ttl and the clock interval must be positive")

    def event_limit_per_kind(self) -> dict[str, int]:
        """Each kind's event limit: the configured one, else the engine's default."""
        return {kind: self.event_limits.get(kind, engine.default_event_limit) for kind, engine in ENGINES.items()}


def _new_seed() -> int:
    return secrets.randbits(63)


@dataclass(frozen=True, slots=True)
class World:
    """What the app takes from the world: the time, new game ids and secret seeds
    (fixed by tests)."""

    clock: Callable[[], float] = time.time
    new_game_id: Callable[[], str] = random_game_id
    new_seed: Callable[[], int] = _new_seed

    def now_ms(self) -> int:
        return int(self.clock() * 1000)


class GameApp:
    def __init__(
        self,
        store: EventStore,
        tokens: TokenAuthority,
        settings: Settings | None = None,
        *,
        world: World | None = None,
        metrics: Metrics | None = None,
        creation: CreationPolicy | None = None,
        find_bot: FindBot = engine_bot,
    ) -> None:
        """`find_bot`: who plays a game's bot, by kind and name (the engines' bots; a
        benchmark gives slower ones: service/bench/bots_beside.py)."""
        settings, world = settings or Settings(), world or World()
        self.store, self.tokens, self.settings = store, tokens, settings
        self.receipts = claims.Receipts(tokens.derived_keys(claims.RECEIPT_PURPOSE))  # proofs of versions given
        self.metrics = metrics = metrics or Metrics()
        self.now_ms = now_ms = world.now_ms
        self.unready_reason = ""  # why the last readiness check failed
        self.degraded = ""  # the shards that could not take writes at the last readiness check, while others did
        self.store_watch = StoreWatch(store, settings.memory_threshold)
        policy = settings.retention
        presence_ttl_ms = int(settings.presence_ttl * 1000)
        self.online = online = Online(store.coordination, now_ms, metrics, presence_ttl_ms)
        self.viewers = viewers = Viewers(tokens, seen=online.presence.seen)
        snapshots = Snapshots(store, metrics, settings.snapshot_interval)
        quotas = Quotas(store, settings.limits, now_ms)
        # The one writer of every game's events (moves/writer.py).
        self.writer = writer = Writer(store, snapshots, metrics, policy, quotas, online.moved)
        self.losses = losses = Losses(now_ms, writer)
        limits = settings.event_limit_per_kind()
        self.live = live = LiveGames(store, metrics, settings.cache_size, snapshots, limits, losses.reconcile)
        creation = creation or OpenCreation(ClientAddresses())
        # Exports, long ListEvents pages, ReplayGame's long folds, ReplayLog and the searching
        # bots' moves: one pool of worker processes, one budget.
        self.heavy_reads = heavy = HeavyReads(settings.heavy, creation.addresses.calling, tokens.is_admin, metrics)
        self.bots = bots = BotChoices(heavy, find_bot)
        self.kit = kit = Kit(live, viewers, tokens, quotas, metrics, now_ms, bots)  # what every use case shares
        retries = settings.max_conflict_retries
        self.appends = appends = Appends(live, writer, metrics, now_ms, retries)
        changes = TableChanges(live, appends)
        new_id = world.new_game_id
        self.games = Games(kit, writer, new_id, world.new_seed, creation, online)
        self.moves = Moves(kit, appends)
        self.tickets = StreamTickets(kit, settings.stream_ticket_ttl)
        self.history = History(
            kit,
            self.tickets,
            settings.max_followers,
            heavy,
            addresses=creation.addresses,
            max_client_followers=settings.max_client_followers,
        )
        self.logs = Logs(kit, writer, new_id, heavy, ExportCache(settings.exports.cache_bytes))
        self.log_replays = LogReplays(heavy)
        self.hints = Hints(kit, heavy, store, settings.hints, creation.addresses.calling)  # its searches: heavy work
        self.seats = Seats(kit)
        self.retention = Retention(kit, policy)
        self.kinds = Kinds()
        self.seating = Seating(kit, changes, self.games, online, new_id)
        self.takeovers = TakeOvers(kit, changes, online)
        self.quick_matches = QuickMatches(kit, self.games, self.seating, online, new_id)
        others = {BOTS_DUE: self.quick_matches.bots_due}  # a quick match's bots, due in the schedule
        self.clocks = ClockWorker(kit, changes, online.schedule, store.coordination, others)
        self._background: list[asyncio.Task[None]] = []
        self._rechecking: asyncio.Task[int] | None = None  # the cached games checked after a failover
        self._stopping = asyncio.Event()

    # --- for sessions that hold a game open (Play) --------------------------------

    async def open_game(
        self, game_id: str, token: str, known_version: int = 0, known_receipt: str = ""
    ) -> tuple[LiveGame, Viewer]:
        """The live game and who the token stands for in it (`known_version` and its
        `known_receipt`: the highest version the caller says it was given, as `claiming`)."""
        with self.claiming(game_id, known_version, known_receipt):
            return await self.kit.open(game_id, token)

    def claiming(self, game_id: str, known_version: int, known_receipt: str) -> contextlib.AbstractContextManager[None]:
        """The caller's claim to have been given `known_version` of the game, for the
        request's duration (model/claims.py): proven when `known_receipt` is that
        version's receipt, else counting for nothing."""
        if not known_version or not game_id:
            return contextlib.nullcontext()
        proof = self.receipts.proof(game_id, known_version, known_receipt) if known_receipt else None
        return claims.claiming(claims.Claim(game_id, known_version, proof))

    def receipt(self, game_id: str, version: int) -> str:
        """The receipt of `version` of the game (claims.Receipts): "" when this process
        does not hold the fingerprint of its event (a game no longer cached, a version
        too old)."""
        live = self.live.cache.get(game_id)
        event_crc = None if live is None or not version else live.in_store.marks.crc(version)
        return "" if event_crc is None else self.receipts.sign(game_id, version, event_crc)

    def receipted(self, answer: Message, game_id: str) -> None:
        """Gives `answer` the receipt of the version it tells the caller (its own
        `version`, of its game or `game_id`'s; else its `game`'s), if it has the field."""
        fields, about = answer.DESCRIPTOR.fields_by_name, cast(Any, answer)
        if "receipt" in fields and "version" in fields:
            about.receipt = self.receipt(about.game_id if "game_id" in fields else game_id, about.version)
        elif "game" in fields and answer.HasField("game"):
            self.receipted(about.game, game_id)

    async def catch_up(self, live: LiveGame, version: int) -> None:
        """Brings the live game to `version`, which a follower has seen stored. When a
        move of this process holds the game (its append may be answered after the
        follower saw its events), its end brings it, without reading the store; else
        another process appended it, and the store is read."""
        lock = self.live.cache.lock(live.game_id)
        if lock.locked():
            async with lock:
                pass
            if live.version >= version:
                return
        await self.live.refresh(live)

    def turn_of(
        self, live: LiveGame, viewer: Viewer, audience: Audience, *, with_view: bool = False
    ) -> tuple[list[game_pb2.Command], game_pb2.GameView | None]:
        """The viewer's legal commands in the live game's current state, described for
        `audience` (none: no view is made), and its view if asked."""
        state = live.state
        if viewer.seat not in live.engine.status(state).to_act:
            return [], None  # not its turn: no view to make
        if not with_view:
            return legal_commands(live.engine, state, viewer, audience), None
        seen, legal = shown(live, state, viewer, audience)
        return legal, seen

    def view_of(self, live: LiveGame, viewer: Viewer) -> game_pb2.GameView:
        """The viewer's view of the live game's current state."""
        return view(live, live.state, viewer)

    def clock_of(self, live: LiveGame, viewer: Viewer) -> game_pb2.SeatClock | None:
        """The viewer's seat's turn clock now, in a game with a clock."""
        clock = live.table.clock
        if clock is None or viewer.seat is None:
            return None
        return clock.message(viewer.seat, self.now_ms())

    @contextlib.asynccontextmanager
    async def attend(self, live: LiveGame, viewer: Viewer) -> AsyncIterator[AsyncIterator[Sighting]]:
        """While a session is open: its seat is online (and if the clock had a bot take
        the seat over, it is its player's again); yields the game's presence, live."""
        seat = viewer.seat
        if seat is not None:
            await self.takeovers.returned(live, viewer)
            self.online.presence.connect(live.game_id, seat)
        sightings = self.online.presence.watch(live.game_id)
        try:
            yield sightings
        finally:
            await sightings.aclose()  # type: ignore[attr-defined]
            if seat is not None:
                self.online.presence.disconnect(live.game_id, seat)

    def game_over(self, live: LiveGame) -> None:
        """A session saw the game end: its presence watch looks for a rematch."""
        self.online.presence.game_over(live.game_id)

    # --- the process --------------------------------------------------------------

    async def start(self) -> None:
        """Starts the background work: presence, the turn clocks' worker, and recording
        the losses of history found and not recorded yet."""
        await self.online.presence.start()
        interval = self.settings.clock_interval
        self._background.append(asyncio.create_task(self.clocks.run(interval, self._stopping)))
        self._background.append(asyncio.create_task(self.losses.keep_recording(self.live, self._stopping)))

    async def stop(self) -> None:
        self._stopping.set()
        self.heavy_reads.close()
        await self.online.presence.stop()
        tasks = [*self._background, *([self._rechecking] if self._rechecking is not None else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._background.clear()

    async def ready(self) -> None:
        """Raises ServiceError(UNAVAILABLE) unless this server should get calls: some
        shard of the store takes writes (the others are `degraded`: their games answer
        UNAVAILABLE). Answers from the store's health as last probed (`check_store`,
        every second in a server), within 200 ms (observe/readiness.py)."""
        view = await self.store_watch.current()
        self.unready_reason, self.degraded = ("", view.degraded) if view.ready else (view.problems, "")
        if not view.ready:
            raise unavailable(f"The event store cannot take writes: {view.problems}")

    async def check_store(self) -> None:
        """Probes the store's health now, for readiness to answer from. Masters that
        changed (a failover, which may have lost versions of any game) make every
        cached game be checked against the store, in the background (LiveGames.recheck)."""
        before = self.store_watch.shards
        await self.store_watch.probe()
        if before and self.store_watch.shards != before and (self._rechecking is None or self._rechecking.done()):
            self._rechecking = asyncio.create_task(self.live.recheck(), name="recheck-cached-games")

    async def drain(self) -> None:
        """Waits for the work under way in the background (snapshot writes)."""
        await self.live.snapshots.idle()
