"""GameApp: the service's use cases, independent of any transport.

Create a game, read it, play a move, list and stream its events, travel back in time.
Every state is rebuilt from the store's events; a cache keeps the live games' states.
Moves on one game are serialised inside this process; between processes the store's
compare-and-set append decides, and a loser catches up and decides again."""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
import secrets
import string
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError, Message
from google.protobuf.timestamp_pb2 import Timestamp
from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import DataUnavailable, InvalidSetup, Role, RuleViolation, SeatInfo, Status, Viewer, fold
from engines.registry import ENGINES, AnyEngine, get_engine
from service import envelopes, gamelog
from service.auth import BadToken, TokenAuthority
from service.errors import (
    Code,
    ServiceError,
    invalid_argument,
    not_found,
    permission_denied,
    rule_violation,
    stale_version,
    unauthenticated,
    unavailable,
)
from service.lazy_random import LazyRandom
from service.metrics import Metrics
from service.seeding import BOT, DECIDE, SETUP, game_rng
from service.store.base import (
    CommandIdReused,
    EventStore,
    GameNotFound,
    StoredEvent,
    StoreUnavailable,
    SubscriberTooSlow,
    VersionConflict,
)
from service.verify import Problem, verify

GAME_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
COMMAND_ID_PATTERN = re.compile(r"^[\x21-\x7e]{1,128}$")
# New game ids: 16 letters or digits (95 bits). No '-' or '_', so an id never
# starts like a command-line option and is easy to select with a double click.
GAME_ID_ALPHABET = string.ascii_letters + string.digits
GAME_ID_LENGTH = 16
MAX_NAME_LENGTH = 64
MAX_AGE = 150
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
MAX_EVENTS_PAGE = 1000
# A game's bots may not play more moves than this in a row: a guard against an
# engine whose bots never hand the turn back.
MAX_BOT_MOVES = 100_000
VIEWER_CACHE_SIZE = 100_000

# How ludotheque_commands_total labels a refused command.
OUTCOMES = {
    Code.FAILED_PRECONDITION: "illegal",
    Code.INVALID_ARGUMENT: "invalid",
    Code.NOT_FOUND: "invalid",
    Code.ALREADY_EXISTS: "invalid",
    Code.ABORTED: "stale",
    Code.UNAUTHENTICATED: "unauthorised",
    Code.PERMISSION_DENIED: "unauthorised",
    Code.UNAVAILABLE: "unavailable",
}

STATUS_NAMES = {game_pb2.GAME_STATUS_ACTIVE: "active", game_pb2.GAME_STATUS_FINISHED: "finished"}


@dataclass(slots=True)
class LiveGame:
    """A game's record and its state at `version`, as cached."""

    record: game_pb2.GameRecord
    engine: AnyEngine
    state: Any
    version: int
    updated_at_ms: int
    summary_head: bytes = b""  # the summary's fields that never change, encoded (_summary_bytes)
    bots: dict[int, str] | None = None  # seat -> bot, for the seats that are bots (_play_bots)

    @property
    def game_id(self) -> str:
        return self.record.game_id

    @property
    def status(self) -> Status:
        return self.engine.status(self.state)


@dataclass(frozen=True, slots=True)
class EventStream:
    """A game's events for one viewer, from a version on. `ended`: nothing will ever
    come (a finished game read past its last event)."""

    events: AsyncIterator[game_pb2.Event]
    ended: bool


@dataclass(frozen=True, slots=True)
class Applied:
    """A command played (or found already played: `replayed`): its events, versions
    first_version..last_version (bot moves included)."""

    live: LiveGame
    viewer: Viewer
    events: list[game_pb2.Event]
    first_version: int
    last_version: int
    replayed: bool = False


@dataclass(slots=True)
class Step:
    """One command's worth of events: a player's command or a bot's."""

    seat: int | None
    command: game_pb2.Command | None
    payloads: list[Message]


def random_game_id() -> str:
    return "".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(GAME_ID_LENGTH))


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
    ) -> None:
        self.store = store
        self.metrics = metrics or Metrics()
        self.tokens = tokens
        self._cache: OrderedDict[str, LiveGame] = OrderedDict()
        self._cache_size = cache_size
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        # Tokens already checked (an HMAC per call otherwise): (game id, token) -> viewer.
        self._viewers: dict[tuple[str, str], Viewer] = {}
        self._max_retries = max_conflict_retries
        self._clock = clock
        self._new_game_id = new_game_id
        self._new_seed = new_seed

    # --- use cases ---------------------------------------------------------------

    async def create_game(
        self, request: game_service_pb2.CreateGameRequest, token: str
    ) -> game_service_pb2.CreateGameResponse:
        engine = get_engine(request.kind)
        if engine is None:
            known = ", ".join(sorted(ENGINES))
            raise invalid_argument("kind", f"Unknown game kind {request.kind!r}: choose one of {known}.")
        seats = _validate_seats(request.seats, engine)
        infos = [SeatInfo(age=s.age if s.HasField("age") else None) for s in seats]
        options = engine.options_type()
        if request.HasField("options"):
            options = envelopes.unwrap(request.options, engine.kind, "options", allow_empty=True)
        try:
            resolved = engine.resolve_options(options, infos)
            seed = self._new_seed()
            payloads = engine.setup(resolved, infos, game_rng(seed, SETUP, 0))
        except InvalidSetup as error:
            raise invalid_argument("options", str(error)) from error
        now = self._now_ms()
        record = game_pb2.GameRecord(
            game_id=self._new_game_id(),
            kind=engine.kind,
            seats=seats,
            options=envelopes.options(engine.kind, resolved),
            seed=seed,
            created_at=_timestamp(now),
            rules_version=engine.rules_version,
        )
        live = LiveGame(record, engine, engine.initial_state(), 0, now)
        state, bot_steps = self._play_bots(live, fold(engine, payloads), len(payloads))
        steps = [Step(None, None, list(payloads)), *bot_steps]
        events = self._envelopes(live, 0, steps, "", now, engine.status(state).finished)
        live.state, live.version = state, len(events)
        await self._store_new_game(live, events, now)
        viewer = self._viewer_for_token(None, token)
        return game_service_pb2.CreateGameResponse(
            game_id=record.game_id,
            seat_tokens=[self.tokens.seat_token(record.game_id, s.index) for s in seats],
            game=self._game_message(live, viewer),
        )

    async def get_game(self, request: game_service_pb2.GetGameRequest, token: str) -> game_pb2.Game:
        live = await self._load(request.game_id)
        return self._game_message(live, self._viewer(live, token))

    async def list_games(
        self, request: game_service_pb2.ListGamesRequest, token: str
    ) -> game_service_pb2.ListGamesResponse:
        if request.kind and request.kind not in ENGINES:
            raise invalid_argument("kind", f"Unknown game kind {request.kind!r}.")
        if request.status not in (game_pb2.GAME_STATUS_UNSPECIFIED, *STATUS_NAMES):
            raise invalid_argument("status", f"Unknown status {request.status}.")
        if request.page_size > MAX_PAGE_SIZE:
            raise invalid_argument("page_size", f"page_size is at most {MAX_PAGE_SIZE}.")
        if request.page_token and not request.page_token.isdigit():
            raise invalid_argument("page_token", "page_token must come from a previous ListGames.")
        viewer = self._viewer_for_token(None, token)
        with _store_errors():
            page = await self.store.list_games(
                request.kind,
                STATUS_NAMES.get(request.status, ""),
                request.page_size or DEFAULT_PAGE_SIZE,
                request.page_token,
            )
        response = game_service_pb2.ListGamesResponse(next_page_token=page.next_cursor)
        for info in page.games:
            game = response.games.add()
            game.MergeFromString(info.summary)
            game.version = info.version
            game.updated_at.CopyFrom(_timestamp(info.updated_at_ms))
            game.viewer.CopyFrom(_viewer_message(viewer))
        return response

    async def submit(
        self, request: game_service_pb2.SubmitCommandRequest, token: str
    ) -> game_service_pb2.SubmitCommandResponse:
        done = await self.apply_command(request, token)
        if done.replayed:
            return await self._replayed(done.live, done.viewer, done.first_version, done.last_version)
        return self._submit_response(done.live, done.viewer, done.events)

    async def apply_command(self, request: game_service_pb2.SubmitCommandRequest, token: str) -> Applied:
        """Plays a command (SubmitCommand without building its response: Play uses it)."""
        labels = {"kind": "unknown", "command": "unknown"}
        metrics = self.metrics
        start = time.perf_counter()
        try:
            done = await self._apply(request, token, labels)
        except ServiceError as error:
            outcome = OUTCOMES.get(error.code, "error")
            metrics.labelled(metrics.commands, labels["kind"], labels["command"], outcome).inc()
            raise
        if done.replayed:
            metrics.labelled(metrics.commands, labels["kind"], labels["command"], "replayed").inc()
            metrics.labelled(metrics.idempotent_replays, labels["kind"]).inc()
        else:
            metrics.labelled(metrics.commands, labels["kind"], labels["command"], "accepted").inc()
            metrics.labelled(metrics.command_seconds, labels["kind"]).observe(time.perf_counter() - start)
        return done

    async def _apply(
        self, request: game_service_pb2.SubmitCommandRequest, token: str, labels: dict[str, str]
    ) -> Applied:
        command_id = request.command_id
        if command_id and not COMMAND_ID_PATTERN.match(command_id):
            raise invalid_argument("command_id", "command_id must be 1 to 128 printable ASCII characters, no spaces.")
        if not request.HasField("command"):
            raise invalid_argument("command", "command is missing.")
        async with self._lock(request.game_id):
            # A cached game is not read again before deciding: the append's
            # compare-and-set finds out when another process moved it (then we catch up
            # and decide again), which saves the store a round trip on every move.
            live = await self._load(request.game_id, refresh=False)
            engine = live.engine
            labels["kind"] = engine.kind
            viewer = self._viewer(live, token)
            seat = self._acting_seat(live, viewer, request)
            payload = envelopes.unwrap(request.command, engine.kind, "command")
            labels["command"] = payload.WhichOneof(payload.DESCRIPTOR.oneofs[0].name) or "unknown"
            command = envelopes.command(engine.kind, payload)
            fingerprint = hashlib.sha256(b"%d:" % seat + command.SerializeToString(deterministic=True)).digest()
            key = f"{seat}/{command_id}" if command_id else f"{seat}/auto-{uuid.uuid4().hex}"
            expected = request.expected_version if request.HasField("expected_version") else None
            for _ in range(self._max_retries):
                try:
                    if expected is not None and expected != live.version:
                        raise stale_version(expected, live.version)
                    state, steps = self._decide(live, seat, command, payload)
                except ServiceError:
                    # A command id already played answers its first result whatever the
                    # game is now (the append would tell too, but a refused move never
                    # gets there); else the refusal stands, unless the cached state was
                    # behind: then decide again on the latest.
                    with _store_errors():
                        previous = await self.store.find_command(live.game_id, key, fingerprint)
                    if previous is not None:
                        return Applied(live, viewer, [], previous.first_version, previous.last_version, replayed=True)
                    if await self._caught_up(live):
                        continue
                    raise
                now = self._now_ms()
                status = engine.status(state)
                events = self._envelopes(live, live.version, steps, key.split("/", 1)[1], now, status.finished)
                try:
                    with _store_errors():
                        result = await self.store.append(
                            live.game_id,
                            live.version,
                            [e.SerializeToString() for e in events],
                            key,
                            fingerprint,
                            STATUS_NAMES[_status_code(status)],
                            self._summary_bytes(live, status, live.version + len(events), now),
                            now,
                        )
                except VersionConflict:
                    self.metrics.labelled(self.metrics.append_conflicts, engine.kind).inc()
                    await self._refresh(live)  # another process moved first: catch up, decide again
                    continue
                if result.replayed:  # the command id was played already (here, or on another process)
                    return Applied(live, viewer, [], result.first_version, result.last_version, replayed=True)
                if live.version < result.last_version:
                    live.state, live.version, live.updated_at_ms = state, result.last_version, now
                if status.finished:
                    self._count_finished(engine.kind, status)
                return Applied(live, viewer, events, result.first_version, result.last_version)
            raise ServiceError(Code.ABORTED, "The game is changing too fast: retry the move.")

    async def list_events(
        self, request: game_service_pb2.ListEventsRequest, token: str
    ) -> game_service_pb2.ListEventsResponse:
        live = await self._load(request.game_id)
        viewer = self._viewer(live, token)
        if request.page_size > MAX_EVENTS_PAGE:
            raise invalid_argument("page_size", f"page_size is at most {MAX_EVENTS_PAGE}.")
        first = max(request.from_version, 1)
        last = min(request.to_version or live.version, live.version)
        stop = min(last, first + (request.page_size or MAX_EVENTS_PAGE) - 1)
        with _store_errors():
            stored = await self.store.read(live.game_id, first, stop) if first <= stop else []
        response = game_service_pb2.ListEventsResponse(version=live.version)
        for item in stored:
            redacted = self._redact(live.engine, _parse_event(item), viewer)
            if redacted is not None:
                response.events.append(redacted)
        if stop < last:
            response.next_from_version = stop + 1
        return response

    async def stream_events(self, request: game_service_pb2.StreamEventsRequest, token: str) -> EventStream:
        """Checks the request now (so transports can answer an error before they
        start streaming), then returns the events as they come."""
        live = await self._load(request.game_id)
        viewer = self._viewer(live, token)
        from_version = max(request.from_version, 1)
        ended = live.status.finished and from_version > live.version
        return EventStream(self._visible(self.follow(live, viewer, from_version)), ended)

    async def _visible(
        self, events: AsyncIterator[tuple[game_pb2.Event, game_pb2.Event | None]]
    ) -> AsyncIterator[game_pb2.Event]:
        async for _, redacted in events:
            if redacted is not None:
                yield redacted

    async def follow(
        self, live: LiveGame, viewer: Viewer, from_version: int
    ) -> AsyncIterator[tuple[game_pb2.Event, game_pb2.Event | None]]:
        """Every event from `from_version` on, then live ones, until the game is over:
        each as stored and as `viewer` may see it (None: not at all)."""
        if live.status.finished and from_version > live.version:
            return
        self.metrics.subscriptions.inc()
        try:
            with _store_errors():
                async for stored in self.store.subscribe(live.game_id, from_version):
                    event = _parse_event(stored)
                    yield event, self._redact(live.engine, event, viewer)
                    if event.game_over:
                        return
        finally:
            self.metrics.subscriptions.dec()

    async def replay(
        self, request: game_service_pb2.ReplayGameRequest, token: str
    ) -> game_service_pb2.ReplayGameResponse:
        live = await self._load(request.game_id)
        viewer = self._viewer(live, token)
        at = request.at_version if request.HasField("at_version") else live.version
        if at > live.version:
            raise invalid_argument("at_version", f"The game has {live.version} events; at_version cannot be {at}.")
        state = live.state if at == live.version else await self._state_at(live, at)
        status = live.engine.status(state)
        return game_service_pb2.ReplayGameResponse(
            at_version=at,
            version=live.version,
            status=_status_code(status),
            to_act=status.to_act,
            outcome=self._outcome(live, status),
            view=envelopes.view(live.engine.kind, live.engine.view(state, viewer)),
            legal_commands=self._legal_commands(live.engine, state, viewer),
        )

    async def export_game(
        self, request: game_service_pb2.ExportGameRequest, token: str
    ) -> game_service_pb2.ExportGameResponse:
        live = await self._load(request.game_id)
        caller = self._viewer(live, token)
        viewer = caller
        if request.HasField("as_seat") or request.as_spectator:
            if not caller.is_admin:
                raise permission_denied("Only the admin may export the log as another viewer saw it.")
            if request.HasField("as_seat"):
                if request.as_seat >= len(live.record.seats):
                    raise invalid_argument("as_seat", f"This game has no seat {request.as_seat}.")
                viewer = Viewer.player(request.as_seat)
            else:
                viewer = Viewer.spectator()
        with _store_errors():
            stored = await self.store.read(live.game_id, 1, live.version)
        record = live.record
        header = game_pb2.GameLogHeader(
            format=gamelog.FORMAT,
            game_id=record.game_id,
            kind=record.kind,
            rules_version=record.rules_version,
            options=record.options,
            seats=record.seats,
            created_at=record.created_at,
            viewer=_viewer_message(viewer),
        )
        if viewer.is_admin:
            header.seed = record.seed  # what a verification or a continued import needs
        log = game_pb2.GameLog(header=header)
        for item in stored:
            redacted = self._redact(live.engine, _parse_event(item), viewer)
            if redacted is not None:
                log.events.append(redacted)
        return game_service_pb2.ExportGameResponse(log=log)

    async def import_game(
        self, request: game_service_pb2.ImportGameRequest, token: str
    ) -> game_service_pb2.ImportGameResponse:
        if not self.tokens.is_admin(token):
            if token:
                raise permission_denied("Only the admin may import a game.")
            raise unauthenticated("Send the admin token to import a game.")
        log = request.log
        checked = verify(log)
        if isinstance(checked, Problem):
            field = "log.header" if checked.index is None else f"log.events[{checked.index}]"
            if checked.rules_mismatch:
                raise ServiceError(Code.FAILED_PRECONDITION, f"This log cannot be replayed: {checked.reason}.")
            raise invalid_argument(field, f"The log breaks the rules at {checked.where}: {checked.reason}.")
        engine = checked.engine
        events = list(log.events)
        if request.HasField("truncate_at"):
            cut = request.truncate_at
            starts = [e.version - 1 for e in events if e.HasField("command")] + [len(events)]
            if cut not in starts or cut == 0:
                nearest = ", ".join(str(v) for v in starts[:3]) + (" ..." if len(starts) > 3 else "")
                raise invalid_argument("truncate_at", f"Cut between two moves, e.g. at {nearest}; not at {cut}.")
            events = events[:cut]
        state = checked.states[len(events)]
        now = self._now_ms()
        record = game_pb2.GameRecord(
            game_id=self._new_game_id(),
            kind=engine.kind,
            seats=log.header.seats,
            options=log.header.options,
            seed=log.header.seed,
            created_at=_timestamp(now),
            rules_version=engine.rules_version,
        )
        live = LiveGame(record, engine, state, len(events), now)
        state, bot_steps = self._play_bots(live, state, len(events))  # a cut where a bot was to act
        finished = engine.status(state).finished
        stored = [game_pb2.Event() for _ in events]
        for copy, event in zip(stored, events, strict=True):
            copy.CopyFrom(event)
            copy.game_over = False
        stored += self._envelopes(live, len(events), bot_steps, "import", now, finished)
        stored[-1].game_over = finished
        live.state, live.version = state, len(stored)
        await self._store_new_game(live, stored, now)
        return game_service_pb2.ImportGameResponse(
            game_id=record.game_id,
            seat_tokens=[self.tokens.seat_token(record.game_id, s.index) for s in record.seats],
            game=self._game_message(live, Viewer.admin()),
        )

    async def open_game(self, game_id: str, token: str) -> tuple[LiveGame, Viewer]:
        """The live game and who the token stands for in it."""
        live = await self._load(game_id)
        return live, self._viewer(live, token)

    async def catch_up(self, live: LiveGame) -> None:
        await self._refresh(live)

    def turn_of(self, live: LiveGame, viewer: Viewer) -> list[game_pb2.Command]:
        """The viewer's legal commands in the live game's current state."""
        return self._legal_commands(live.engine, live.state, viewer)

    def view_of(self, live: LiveGame, viewer: Viewer) -> game_pb2.GameView:
        return envelopes.view(live.engine.kind, live.engine.view(live.state, viewer))

    async def ready(self) -> None:
        """Raises ServiceError(UNAVAILABLE) when the store cannot be reached."""
        with _store_errors():
            await self.store.ping()

    async def _store_new_game(self, live: LiveGame, events: Sequence[game_pb2.Event], now: int) -> None:
        """Stores a new game (created or imported) with its first events, and caches it."""
        record = live.record
        with _store_errors():
            await self.store.create(
                record.game_id,
                record.kind,
                STATUS_NAMES[_status_code(live.status)],
                record.SerializeToString(),
                self._summary(live).SerializeToString(),
                [e.SerializeToString() for e in events],
                now,
            )
        self._remember(live)
        self.metrics.labelled(self.metrics.games_created, record.kind).inc()
        if live.status.finished:  # a game of bots plays itself out at once; so may an import
            self._count_finished(live.engine.kind, live.status)

    # --- deciding ----------------------------------------------------------------

    def _decide(self, live: LiveGame, seat: int, command: game_pb2.Command, payload: Message) -> tuple[Any, list[Step]]:
        """The events of `command` then of the bot moves it lets happen, and the state after them."""
        engine, version = live.engine, live.version
        try:
            payloads = engine.decide(live.state, seat, payload, self._rng(live, DECIDE, version))
        except RuleViolation as violation:
            raise rule_violation(violation.code, violation.message) from violation
        state = live.state
        for item in payloads:
            state = engine.evolve(state, item)
        state, bot_steps = self._play_bots(live, state, version + len(payloads))
        return state, [Step(seat, command, payloads), *bot_steps]

    def _play_bots(self, live: LiveGame, state: Any, version: int) -> tuple[Any, list[Step]]:
        """Plays bot seats while the game waits for one (deterministic from the seed)."""
        engine = live.engine
        bots = live.bots
        if bots is None:  # read once per cached game: a game's seats never change
            bots = live.bots = {seat.index: seat.bot for seat in live.record.seats if seat.bot}
        steps: list[Step] = []
        if not bots:
            return state, steps
        for _ in range(MAX_BOT_MOVES):
            status = engine.status(state)
            seat = next((s for s in status.to_act if s in bots), None)
            if status.finished or seat is None:
                return state, steps
            payload = engine.bots[bots[seat]](state, seat, self._rng(live, BOT, version))
            try:
                payloads = engine.decide(state, seat, payload, self._rng(live, DECIDE, version))
            except RuleViolation as violation:  # a bot must only play legal moves
                raise ServiceError(
                    Code.INTERNAL, f"bot {bots[seat]!r} played an illegal move: {violation.message}"
                ) from violation
            for item in payloads:
                state = engine.evolve(state, item)
            steps.append(Step(seat, envelopes.command(engine.kind, payload), payloads))
            version += len(payloads)
        raise ServiceError(Code.INTERNAL, "the bots did not hand the turn back")

    def _rng(self, live: LiveGame, purpose: str, version: int) -> random.Random:
        # Seeded on its first draw only: most decisions draw nothing (service/lazy_random.py).
        seed = live.record.seed
        return LazyRandom(lambda: game_rng(seed, purpose, version))

    def _envelopes(
        self, live: LiveGame, version: int, steps: Sequence[Step], command_id: str, now_ms: int, finished: bool
    ) -> list[game_pb2.Event]:
        engine = live.engine
        recorded_at = _timestamp(now_ms)
        events: list[game_pb2.Event] = []
        for step in steps:
            for index, payload in enumerate(step.payloads):
                version += 1
                event = envelopes.wrap(game_pb2.Event, engine.kind, payload)
                event.version = version
                event.recorded_at.CopyFrom(recorded_at)
                event.rules_version = engine.rules_version
                event.command_id = command_id if step.seat is not None else ""
                if step.seat is not None:
                    event.seat = step.seat
                if index == 0 and step.command is not None:
                    event.command.CopyFrom(step.command)
                events.append(event)
        if events:
            events[-1].game_over = finished
        return events

    # --- loading -----------------------------------------------------------------

    async def _load(self, game_id: str, *, refresh: bool = True) -> LiveGame:
        """The game, cached; `refresh`: with the events other processes appended."""
        if not GAME_ID_PATTERN.match(game_id):
            raise invalid_argument("game_id", "game_id must be 1 to 64 letters, digits, '-' or '_'.")
        live = self._cache.get(game_id)
        if live is not None:
            self._cache.move_to_end(game_id)
            if refresh:
                await self._refresh(live)
            return live
        with _store_errors():
            try:
                info = await self.store.info(game_id)
            except GameNotFound:
                raise not_found(game_id) from None
            stored = await self.store.read(game_id, 1)
        record = game_pb2.GameRecord.FromString(info.record)
        engine = get_engine(record.kind)
        if engine is None:
            raise ServiceError(Code.FAILED_PRECONDITION, f"This server does not play {record.kind!r} games.")
        if record.rules_version != engine.rules_version:
            raise ServiceError(
                Code.FAILED_PRECONDITION,
                f"Game {game_id!r} was played under rules {record.rules_version!r}; "
                f"this server plays {engine.rules_version!r}.",
            )
        live = LiveGame(record, engine, engine.initial_state(), 0, info.updated_at_ms)
        try:
            self._advance(live, stored)
        except DataUnavailable as error:  # dealt with game data this build no longer has
            raise ServiceError(Code.FAILED_PRECONDITION, f"Game {game_id!r} cannot be replayed: {error}.") from error
        self._remember(live)
        return live

    async def _caught_up(self, live: LiveGame) -> bool:
        """Applies the events other processes appended; whether there were any."""
        version = live.version
        await self._refresh(live)
        return live.version != version

    async def _refresh(self, live: LiveGame) -> None:
        """Applies the events other processes appended since `live.version`."""
        with _store_errors():
            stored = await self.store.read(live.game_id, live.version + 1)
        self._advance(live, stored)

    def _advance(self, live: LiveGame, stored: Sequence[StoredEvent]) -> None:
        for item in stored:
            if item.version != live.version + 1:
                continue  # already applied by a concurrent request of this process
            event = _parse_event(item)
            live.state = live.engine.evolve(live.state, envelopes.event_payload(event))
            live.version = item.version
            live.updated_at_ms = _ms(event.recorded_at)

    async def _state_at(self, live: LiveGame, version: int) -> Any:
        with _store_errors():
            stored = await self.store.read(live.game_id, 1, version)
        engine = live.engine
        return fold(engine, [envelopes.event_payload(_parse_event(item)) for item in stored])

    def _remember(self, live: LiveGame) -> None:
        self._cache[live.game_id] = live
        self._cache.move_to_end(live.game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        self.metrics.cached_games.set(len(self._cache))

    def _count_finished(self, kind: str, status: Status) -> None:
        outcome = "won" if status.winners else "lost"
        self.metrics.labelled(self.metrics.games_finished, kind, outcome).inc()

    def _lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    # --- who is asking -----------------------------------------------------------

    def _viewer(self, live: LiveGame, token: str) -> Viewer:
        return self._viewer_for_token(live, token)

    def _viewer_for_token(self, live: LiveGame | None, token: str) -> Viewer:
        if live is None:
            # Outside a game (creating, listing) only the admin token means anything.
            return Viewer.admin() if self.tokens.is_admin(token) else Viewer.spectator()
        key = (live.game_id, token)
        viewer = self._viewers.get(key)
        if viewer is None:
            try:
                viewer = self.tokens.viewer(live.game_id, token, len(live.record.seats))
            except BadToken:
                raise unauthenticated("That token is not valid for this game.") from None
            if len(self._viewers) >= VIEWER_CACHE_SIZE:
                self._viewers.clear()
            self._viewers[key] = viewer
        return viewer

    def _acting_seat(self, live: LiveGame, viewer: Viewer, request: game_service_pb2.SubmitCommandRequest) -> int:
        if viewer.role is Role.SPECTATOR:
            raise unauthenticated("Send your seat token (authorization: Bearer <token>) to play.")
        if viewer.role is Role.ADMIN:
            if not request.HasField("seat"):
                raise invalid_argument("seat", "An admin must say which seat to act for.")
            if request.seat >= len(live.record.seats):
                raise invalid_argument("seat", f"This game has no seat {request.seat}.")
            return request.seat
        assert viewer.seat is not None
        if request.HasField("seat") and request.seat != viewer.seat:
            raise permission_denied(f"Your token is for seat {viewer.seat}; it cannot act for seat {request.seat}.")
        return viewer.seat

    # --- answers -----------------------------------------------------------------

    def _redact(self, engine: AnyEngine, event: game_pb2.Event, viewer: Viewer) -> game_pb2.Event | None:
        payload = envelopes.event_payload(event)
        redacted = engine.redact(payload, viewer)
        if redacted is None:
            return None
        if viewer.is_admin:
            return event
        out = game_pb2.Event()
        out.CopyFrom(event)
        out.ClearField("command")
        if redacted is not payload:
            getattr(out, engine.kind).CopyFrom(redacted)
        return out

    def _legal_commands(self, engine: AnyEngine, state: Any, viewer: Viewer) -> list[game_pb2.Command]:
        if viewer.role is Role.SEAT:
            assert viewer.seat is not None
            seats: Sequence[int] = (viewer.seat,)
        elif viewer.is_admin:
            seats = engine.status(state).to_act
        else:
            return []
        return [envelopes.command(engine.kind, c) for seat in seats for c in engine.legal_commands(state, seat)]

    def _outcome(self, live: LiveGame, status: Status) -> game_pb2.Outcome:
        if not status.finished:
            return game_pb2.Outcome()
        names = [seat.name for seat in live.record.seats]
        summary = re.sub(r"\{(\d+)\}", lambda m: names[int(m.group(1))], status.summary)
        return game_pb2.Outcome(winners=status.winners, scores=status.scores, summary=summary)

    def _summary(self, live: LiveGame) -> game_pb2.Game:
        """The game without any viewer's view: what ListGames shows."""
        status = live.status
        record = live.record
        return game_pb2.Game(
            game_id=record.game_id,
            kind=record.kind,
            status=_status_code(status),
            version=live.version,
            seats=record.seats,
            options=record.options,
            to_act=status.to_act,
            outcome=self._outcome(live, status),
            created_at=record.created_at,
            updated_at=_timestamp(live.updated_at_ms),
            rules_version=record.rules_version,
        )

    def _summary_bytes(self, live: LiveGame, status: Status, version: int, updated_at_ms: int) -> bytes:
        """_summary(...).SerializeToString() of the game at `version`, from the fields
        that never change (encoded once per cached game) and those that do: encoded
        messages concatenated parse as one (the store keeps them opaque)."""
        if not live.summary_head:
            record = live.record
            live.summary_head = game_pb2.Game(
                game_id=record.game_id,
                kind=record.kind,
                seats=record.seats,
                options=record.options,
                created_at=record.created_at,
                rules_version=record.rules_version,
            ).SerializeToString()
        tail = game_pb2.Game(
            status=_status_code(status),
            version=version,
            to_act=status.to_act,
            outcome=self._outcome(live, status),
            updated_at=_timestamp(updated_at_ms),
        )
        return live.summary_head + tail.SerializeToString()

    def _game_message(self, live: LiveGame, viewer: Viewer) -> game_pb2.Game:
        game = self._summary(live)
        game.view.CopyFrom(envelopes.view(live.engine.kind, live.engine.view(live.state, viewer)))
        game.legal_commands.extend(self._legal_commands(live.engine, live.state, viewer))
        game.viewer.CopyFrom(_viewer_message(viewer))
        return game

    def _submit_response(
        self,
        live: LiveGame,
        viewer: Viewer,
        events: Sequence[game_pb2.Event],
        *,
        state: Any = None,
        version: int | None = None,
        replayed: bool = False,
    ) -> game_service_pb2.SubmitCommandResponse:
        state = live.state if state is None else state
        status = live.engine.status(state)
        response = game_service_pb2.SubmitCommandResponse(
            version=live.version if version is None else version,
            view=envelopes.view(live.engine.kind, live.engine.view(state, viewer)),
            legal_commands=self._legal_commands(live.engine, state, viewer),
            status=_status_code(status),
            to_act=status.to_act,
            outcome=self._outcome(live, status),
            replayed=replayed,
        )
        for event in events:
            redacted = self._redact(live.engine, event, viewer)
            if redacted is not None:
                response.events.append(redacted)
        return response

    async def _replayed(
        self, live: LiveGame, viewer: Viewer, first: int, last: int
    ) -> game_service_pb2.SubmitCommandResponse:
        """The response the first submission of a command id got."""
        await self._refresh(live)
        with _store_errors():
            stored = await self.store.read(live.game_id, first, last)
        state = live.state if last == live.version else await self._state_at(live, last)
        events = [_parse_event(item) for item in stored]
        return self._submit_response(live, viewer, events, state=state, version=last, replayed=True)

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)


# --- helpers ---------------------------------------------------------------------


def _validate_seats(specs: Sequence[game_pb2.SeatSpec], engine: AnyEngine) -> list[game_pb2.Seat]:
    if not engine.min_seats <= len(specs) <= engine.max_seats:
        span = (
            f"{engine.min_seats}"
            if engine.min_seats == engine.max_seats
            else f"{engine.min_seats} to {engine.max_seats}"
        )
        raise invalid_argument("seats", f"A {engine.kind!r} game needs {span} seats, not {len(specs)}.")
    seats = []
    for index, spec in enumerate(specs):
        name = spec.name.strip()
        if not 1 <= len(name) <= MAX_NAME_LENGTH or not name.isprintable():
            raise invalid_argument(
                f"seats[{index}].name", f"A seat's name is 1 to {MAX_NAME_LENGTH} printable characters."
            )
        if spec.HasField("age") and spec.age > MAX_AGE:
            raise invalid_argument(f"seats[{index}].age", f"An age is at most {MAX_AGE}.")
        if spec.bot and spec.bot not in engine.bots:
            known = ", ".join(sorted(engine.bots))
            raise invalid_argument(f"seats[{index}].bot", f"Unknown bot {spec.bot!r}: choose one of {known}, or none.")
        seat = game_pb2.Seat(index=index, name=name, bot=spec.bot)
        if spec.HasField("age"):
            seat.age = spec.age
        seats.append(seat)
    return seats


def _parse_event(item: StoredEvent) -> game_pb2.Event:
    try:
        return game_pb2.Event.FromString(item.data)
    except DecodeError as error:
        raise ServiceError(Code.INTERNAL, f"stored event {item.version} is corrupt") from error


def _status_code(status: Status) -> game_pb2.GameStatus.ValueType:
    return game_pb2.GAME_STATUS_FINISHED if status.finished else game_pb2.GAME_STATUS_ACTIVE


def _viewer_message(viewer: Viewer) -> game_pb2.Viewer:
    role = {
        Role.SEAT: game_pb2.VIEWER_ROLE_SEAT,
        Role.SPECTATOR: game_pb2.VIEWER_ROLE_SPECTATOR,
        Role.ADMIN: game_pb2.VIEWER_ROLE_ADMIN,
    }[viewer.role]
    message = game_pb2.Viewer(role=role)
    if viewer.seat is not None:
        message.seat = viewer.seat
    return message


def _timestamp(ms: int) -> Timestamp:
    stamp = Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def _ms(stamp: Timestamp) -> int:
    return stamp.ToMilliseconds()


@contextmanager
def _store_errors() -> Iterator[None]:
    """Maps the store's errors to the service's."""
    try:
        yield
    except StoreUnavailable as error:
        raise unavailable(f"The event store cannot be reached: {error}") from error
    except CommandIdReused as error:
        raise ServiceError(Code.ALREADY_EXISTS, f"{error}: use a new command_id for a new move.") from error
    except SubscriberTooSlow as error:
        raise ServiceError(
            Code.RESOURCE_EXHAUSTED, "The event stream fell too far behind; resume from the last version received."
        ) from error
    except GameNotFound as error:
        raise not_found(error.game_id) from error
