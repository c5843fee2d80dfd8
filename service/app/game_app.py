"""GameApp: every use case of the service, behind one object, independent of any transport.

Create a game, read it, play a move, list and stream its events, travel back in time,
export and import logs, replay a log sent in a request; play online: join open seats,
leave them, start and replay games, let bots take seats over and hand them back, see
who is connected, and play for seats whose turn clock ran out. Each family of use cases
lives in its own module (games, moves, history, logs, log_replay, seats, seating,
takeover; online, presence and clocks for what the others hook into); GameApp wires
them to one store, one live-game cache and one token authority. Moves on one game are
serialised inside this process; between processes the store's compare-and-set append
decides, and a loser catches up and decides again. start() and stop() run the
background work: presence leases and notices, and the worker that fires the turn
clocks' timeouts."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping

from ludotheque.v1 import game_pb2

from engines.contract import Viewer
from engines.registry import ENGINES
from service.app.access.auth import TokenAuthority
from service.app.access.creators import CreationPolicy, OpenCreation
from service.app.access.limits import CreationLimits, Quotas
from service.app.access.origins import ClientAddresses
from service.app.access.tickets import StreamTickets
from service.app.access.viewers import Viewers
from service.app.games.games import Games, random_game_id
from service.app.games.seats import Seats
from service.app.history.history import DEFAULT_MAX_FOLLOWERS, History
from service.app.keeping.losses import Losses
from service.app.keeping.retention import Retention, RetentionPolicy
from service.app.logs.log_replay import LogReplays
from service.app.logs.logs import Logs
from service.app.model.errors import unavailable
from service.app.model.live import LiveGame, LiveGames
from service.app.model.snapshots import DEFAULT_EVERY, Snapshots
from service.app.moves.append import Appends
from service.app.moves.moves import Moves
from service.app.moves.table_changes import TableChanges
from service.app.observe.metrics import Metrics
from service.app.online.clocks import ClockWorker
from service.app.online.online import Online
from service.app.online.presence import Sighting
from service.app.tables.seating import Seating
from service.app.tables.takeover import TakeOvers
from service.app.views.descriptions import Audience
from service.app.views.kinds import Kinds
from service.app.views.views import legal_commands, shown, view
from service.store.base import EventStore


class GameApp:
    def __init__(
        self,
        store: EventStore,
        tokens: TokenAuthority,
        *,
        cache_size: int = 10_000,
        max_conflict_retries: int = 8,
        clock: Callable[[], float] = time.time,
        new_game_id: Callable[[], str] = random_game_id,
        new_seed: Callable[[], int] = lambda: secrets.randbits(63),
        metrics: Metrics | None = None,
        creation: CreationPolicy | None = None,
        limits: CreationLimits | None = None,
        memory_threshold: float = 0.9,
        event_limits: Mapping[str, int] | None = None,
        snapshot_interval: int = DEFAULT_EVERY,
        retention: RetentionPolicy | None = None,
        max_followers: int = DEFAULT_MAX_FOLLOWERS,
        stream_ticket_ttl: float = 60.0,
        play_join_timeout: float = 10.0,
        presence_ttl: float = 15.0,
        clock_interval: float = 1.0,
    ) -> None:
        if presence_ttl <= 0 or clock_interval <= 0:
            raise ValueError("the presence ttl and the clock interval must be positive")
        self.store = store
        self.metrics = metrics or Metrics()
        self.tokens = tokens
        self._clock = clock
        self.memory_threshold = memory_threshold
        self.unready_reason = ""  # why the last readiness check failed
        self.clock_interval = clock_interval
        policy = retention or RetentionPolicy()
        # Each kind's event limit: the configured one, else the engine's default.
        self.event_limits = {kind: engine.default_event_limit for kind, engine in ENGINES.items()}
        self.event_limits.update(event_limits or {})
        snapshots = Snapshots(store, self.metrics, snapshot_interval)
        self.games = LiveGames(store, self.metrics, cache_size, snapshots, self.event_limits)
        self.games.reconcile = Losses(self.metrics, self.now_ms, policy).reconcile
        self.viewers = Viewers(tokens)
        self.online = Online(store.coordination, self.now_ms, self.metrics, int(presence_ttl * 1000))
        self.viewers.seen = self.online.presence.seen
        quotas = Quotas(store, limits or CreationLimits(), self.now_ms)  # default: no limit
        self.retention = Retention(self.games, self.viewers, policy, self.metrics, self.now_ms, quotas)
        creating = Games(
            self.games,
            self.viewers,
            tokens,
            self.metrics,
            self.now_ms,
            new_game_id,
            new_seed,
            creation or OpenCreation(ClientAddresses()),
            quotas,
            policy,
            self.online,
        )
        self.appends = appends = Appends(
            self.games, self.metrics, self.now_ms, max_conflict_retries, quotas, policy, self.online.moved
        )
        moves = Moves(self.games, self.viewers, appends, self.now_ms)
        tickets = StreamTickets(self.games, self.viewers, tokens, self.now_ms, stream_ticket_ttl)
        history = History(self.games, self.viewers, self.metrics, tickets, max_followers)
        # How long a Play session may take to send its join (every transport).
        self.play_join_timeout = play_join_timeout
        logs = Logs(self.games, self.viewers, tokens, creating, self.now_ms, new_game_id)
        seats = Seats(self.games, tokens)
        kinds = Kinds()
        changes = TableChanges(self.games, appends)
        seating = Seating(
            self.games, self.viewers, tokens, self.metrics, self.now_ms, changes, creating, self.online, new_game_id
        )
        self.takeovers = TakeOvers(self.games, self.viewers, self.metrics, self.now_ms, changes, self.online)
        self.clocks = ClockWorker(
            self.games, changes, self.online.schedule, store.coordination, self.metrics, self.now_ms
        )
        self._background: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()
        # The use cases, one per RPC (service/api/rpcs.py maps them).
        self.create_game = creating.create_game
        self.get_game = creating.get_game
        self.list_games = creating.list_games
        self.submit = moves.submit
        self.apply_command = moves.apply_command
        self.list_events = history.list_events
        self.stream_events = history.stream_events
        self.follow = history.follow
        self.issue_stream_ticket = tickets.issue_stream_ticket
        self.replay = history.replay
        self.export_game = logs.export_game
        self.import_game = logs.import_game
        self.replay_log = LogReplays().replay_log
        self.rotate_seat_token = seats.rotate_seat_token
        self.delete_game = self.retention.delete_game
        self.get_game_kind = kinds.get_game_kind
        self.list_game_kinds = kinds.list_game_kinds
        self.join_game = seating.join_game
        self.leave_game = seating.leave_game
        self.start_game = seating.start_game
        self.play_again = seating.play_again
        self.take_over_seat = self.takeovers.take_over
        self.hand_back_seat = self.takeovers.hand_back

    # --- for sessions that hold a game open (Play) --------------------------------

    async def open_game(self, game_id: str, token: str) -> tuple[LiveGame, Viewer]:
        """The live game and who the token stands for in it."""
        live = await self.games.load(game_id)
        return live, self.viewers.in_game(live, token)

    async def catch_up(self, live: LiveGame, version: int) -> None:
        """Brings the live game to `version`, which a follower has seen stored. When a
        move of this process holds the game (its append may be answered after the
        follower saw its events), its end brings it, without reading the store; else
        another process appended it, and the store is read."""
        lock = self.games.lock(live.game_id)
        if lock.locked():
            async with lock:
                pass
            if live.version >= version:
                return
        await self.games.refresh(live)

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
        """Starts the background work: presence, and the turn clocks' worker."""
        await self.online.presence.start()
        self._background.append(asyncio.create_task(self.clocks.run(self.clock_interval, self._stopping)))

    async def stop(self) -> None:
        self._stopping.set()
        await self.online.presence.stop()
        for task in self._background:
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        self._background.clear()

    async def ready(self) -> None:
        """Raises ServiceError(UNAVAILABLE) unless every shard of the store takes writes
        now and none uses more than `memory_threshold` of its memory limit."""
        health = await self.store.health()
        problems = health.problems + [
            f"{shard.name}: {shard.memory_used:.0%} of its memory limit in use"
            for shard in health.shards
            if shard.writable and shard.memory_used > self.memory_threshold
        ]
        self.unready_reason = "; ".join(problems)
        if problems:
            raise unavailable(f"The event store cannot take writes: {self.unready_reason}")

    async def drain(self) -> None:
        """Waits for the work under way in the background (snapshot writes)."""
        await self.games.snapshots.idle()

    def now_ms(self) -> int:
        return int(self._clock() * 1000)
