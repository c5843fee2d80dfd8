"""GameApp: every use case of the service, behind one object, independent of any transport.

Create a game, read it, play a move, list and stream its events, travel back in time,
export and import logs, replay a log sent in a request. Each family of use cases lives
in its own module (games, moves, history, logs, log_replay); GameApp wires them to one
store, one live-game cache and one token authority. Moves on one game are serialised
inside this process; between processes the store's compare-and-set append decides, and
a loser catches up and decides again."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping

from ludotheque.v1 import game_pb2

from engines.contract import Viewer
from engines.registry import ENGINES
from service.app.auth import TokenAuthority
from service.app.creators import CreationPolicy, OpenCreation
from service.app.descriptions import Audience
from service.app.errors import unavailable
from service.app.games import Games, random_game_id
from service.app.history import DEFAULT_MAX_FOLLOWERS, History
from service.app.kinds import Kinds
from service.app.limits import CreationLimits, Quotas
from service.app.live import LiveGame, LiveGames
from service.app.log_replay import replay_log
from service.app.logs import Logs
from service.app.losses import Losses
from service.app.metrics import Metrics
from service.app.moves import Moves
from service.app.origins import ClientAddresses
from service.app.retention import Retention, RetentionPolicy
from service.app.seats import Seats
from service.app.snapshots import DEFAULT_EVERY, Snapshots
from service.app.tickets import StreamTickets
from service.app.viewers import Viewers
from service.app.views import legal_commands, shown, view
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
    ) -> None:
        self.store = store
        self.metrics = metrics or Metrics()
        self.tokens = tokens
        self._clock = clock
        self.memory_threshold = memory_threshold
        self.unready_reason = ""  # why the last readiness check failed
        policy = retention or RetentionPolicy()
        self.games = LiveGames(store, self.metrics, cache_size, Snapshots(store, self.metrics, snapshot_interval))
        self.games.reconcile = Losses(self.metrics, self.now_ms, policy).reconcile
        self.viewers = Viewers(tokens)
        quotas = Quotas(store, limits or CreationLimits(), self.now_ms)  # default: no limit
        # Each kind's event limit: the configured one, else the engine's default.
        self.event_limits = {kind: engine.default_event_limit for kind, engine in ENGINES.items()}
        self.event_limits.update(event_limits or {})
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
            self.event_limits,
            policy,
        )
        moves = Moves(
            self.games,
            self.viewers,
            self.metrics,
            self.now_ms,
            max_conflict_retries,
            quotas,
            self.event_limits,
            policy,
        )
        tickets = StreamTickets(self.games, self.viewers, tokens, self.now_ms, stream_ticket_ttl)
        history = History(self.games, self.viewers, self.metrics, tickets, max_followers)
        # How long a Play session may take to send its join (every transport).
        self.play_join_timeout = play_join_timeout
        logs = Logs(self.games, self.viewers, tokens, creating, self.now_ms, new_game_id, self.event_limits)
        seats = Seats(self.games, tokens)
        kinds = Kinds()
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
        self.replay_log = replay_log
        self.rotate_seat_token = seats.rotate_seat_token
        self.delete_game = self.retention.delete_game
        self.get_game_kind = kinds.get_game_kind
        self.list_game_kinds = kinds.list_game_kinds

    # --- for sessions that hold a game open (Play) --------------------------------

    async def open_game(self, game_id: str, token: str) -> tuple[LiveGame, Viewer]:
        """The live game and who the token stands for in it."""
        live = await self.games.load(game_id)
        return live, self.viewers.in_game(live, token)

    async def catch_up(self, live: LiveGame) -> None:
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

    # --- the process --------------------------------------------------------------

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
