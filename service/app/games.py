"""Use cases of games as a whole: create one, read one, list them."""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable, Sequence

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import InvalidSetup, SeatInfo, fold
from engines.registry import ENGINES, AnyEngine, get_engine
from service.app import envelopes
from service.app.auth import TokenAuthority
from service.app.clocks import validate_clock
from service.app.errors import invalid_argument
from service.app.live import LiveGame, LiveGames
from service.app.metrics import Metrics
from service.app.online import Online
from service.app.seeding import SETUP, game_rng
from service.app.steps import Step, play_bots, stamp
from service.app.stored import store_errors
from service.app.viewers import Viewers
from service.app.views import STATUS_NAMES, game_message, status_code, summary, timestamp, viewer_message

# New game ids: 16 letters or digits (95 bits). No '-' or '_', so an id never
# starts like a command-line option and is easy to select with a double click.
GAME_ID_ALPHABET = string.ascii_letters + string.digits
GAME_ID_LENGTH = 16
MAX_NAME_LENGTH = 64
MAX_AGE = 150
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


def random_game_id() -> str:
    return "".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(GAME_ID_LENGTH))


class Games:
    def __init__(
        self,
        games: LiveGames,
        viewers: Viewers,
        tokens: TokenAuthority,
        metrics: Metrics,
        now_ms: Callable[[], int],
        new_game_id: Callable[[], str],
        new_seed: Callable[[], int],
        online: Online | None = None,
    ) -> None:
        self._games = games
        self._viewers = viewers
        self._tokens = tokens
        self._metrics = metrics
        self._now_ms = now_ms
        self._new_game_id = new_game_id
        self._new_seed = new_seed
        self._online = online

    async def create_game(
        self, request: game_service_pb2.CreateGameRequest, token: str
    ) -> game_service_pb2.CreateGameResponse:
        return await self.create(request, token, self._new_game_id())

    async def create(
        self, request: game_service_pb2.CreateGameRequest, token: str, game_id: str
    ) -> game_service_pb2.CreateGameResponse:
        """CreateGame, under `game_id` (a rematch's is claimed first). Raises GameExists."""
        engine = get_engine(request.kind)
        if engine is None:
            known = ", ".join(sorted(ENGINES))
            raise invalid_argument("kind", f"Unknown game kind {request.kind!r}: choose one of {known}.")
        seats = validate_seats(request.seats, engine)
        clock = validate_clock(request.clock) if request.HasField("clock") else None
        waits = any(seat.open for seat in seats)  # for players to join: dealt once they have
        infos = [SeatInfo(age=s.age if s.HasField("age") else None) for s in seats]
        options = engine.options_type()
        if request.HasField("options"):
            options = envelopes.unwrap(request.options, engine.kind, "options", allow_empty=True)
        try:
            resolved = engine.resolve_options(options, infos)
            seed = self._new_seed()
            payloads = [] if waits else engine.setup(resolved, infos, game_rng(seed, SETUP, 0))
        except InvalidSetup as error:
            raise invalid_argument("options", str(error)) from error
        now = self._now_ms()
        record = game_pb2.GameRecord(
            game_id=game_id,
            kind=engine.kind,
            seats=seats,
            # Waiting for its players, a game keeps its options as asked: the defaults
            # that depend on the players (who is youngest) are filled in at the deal.
            options=envelopes.options(engine.kind, options if waits else resolved),
            seed=seed,
            created_at=timestamp(now),
            rules_version=engine.rules_version,
            clock=clock,
        )
        if waits and self._online is not None:
            record.join_code = await self._online.join_codes.claim(game_id)
        live = LiveGame(record, engine, engine.initial_state(), 0, now)
        state, steps = live.state, []
        if not waits:
            state, bot_steps = play_bots(live, fold(engine, payloads), len(payloads))
            steps = [Step(None, None, list(payloads)), *bot_steps]
        events = stamp(live, 0, steps, "", now, engine.status(state).finished)
        live.moved(events, state, len(events), now)
        await self.store_new_game(live, events, now)
        viewer = self._viewers.outside_game(token)
        return game_service_pb2.CreateGameResponse(
            game_id=record.game_id,
            seat_tokens=["" if s.open else self._tokens.seat_token(record.game_id, s.index) for s in seats],
            game=game_message(live, viewer, now),
            host_token=self._tokens.host_token(record.game_id) if waits else "",
        )

    async def get_game(self, request: game_service_pb2.GetGameRequest, token: str) -> game_pb2.Game:
        live = await self._games.load(request.game_id)
        game = game_message(live, self._viewers.in_game(live, token), self._now_ms())
        if self._online is not None:
            await self._online.show(live, game)
        return game

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
        viewer = self._viewers.outside_game(token)
        with store_errors():
            page = await self._games.store.list_games(
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
            game.updated_at.CopyFrom(timestamp(info.updated_at_ms))
            game.viewer.CopyFrom(viewer_message(viewer))
        return response

    async def store_new_game(self, live: LiveGame, events: Sequence[game_pb2.Event], now: int) -> None:
        """Stores a new game (created or imported) with its first events, and caches it."""
        record = live.record
        with store_errors():
            await self._games.store.create(
                record.game_id,
                record.kind,
                STATUS_NAMES[status_code(live.status, live.table.started)],
                record.SerializeToString(),
                summary(live).SerializeToString(),
                [e.SerializeToString() for e in events],
                now,
            )
        self._games.remember(live)
        if self._online is not None:
            await self._online.moved(live, 0)  # a turn clock's first deadline
        self._metrics.labelled(self._metrics.games_created, record.kind).inc()
        status = live.status
        if status.finished:  # a game of bots plays itself out at once; so may an import
            self._metrics.game_finished(record.kind, bool(status.winners))


def validate_seats(specs: Sequence[game_pb2.SeatSpec], engine: AnyEngine) -> list[game_pb2.Seat]:
    if not engine.min_seats <= len(specs) <= engine.max_seats:
        span = (
            f"{engine.min_seats}"
            if engine.min_seats == engine.max_seats
            else f"{engine.min_seats} to {engine.max_seats}"
        )
        raise invalid_argument("seats", f"A {engine.kind!r} game needs {span} seats, not {len(specs)}.")
    seats = []
    for index, spec in enumerate(specs):
        name = validate_name(spec.name, f"seats[{index}].name", optional=spec.open)
        if spec.HasField("age"):
            validate_age(spec.age, f"seats[{index}].age")
        validate_bot(spec.bot, f"seats[{index}].bot", engine)
        if spec.open and spec.bot:
            raise invalid_argument(f"seats[{index}].bot", "An open seat is for a player to join: not for a bot.")
        if spec.open and spec.HasField("age"):
            raise invalid_argument(f"seats[{index}].age", "An open seat's age is its player's, given when they join.")
        validate_bot(spec.stand_in, f"seats[{index}].stand_in", engine)
        seat = game_pb2.Seat(index=index, name=name, bot=spec.bot, open=spec.open, stand_in=spec.stand_in)
        if spec.HasField("age"):
            seat.age = spec.age
        seats.append(seat)
    return seats


def validate_name(name: str, field: str, *, optional: bool = False) -> str:
    """A player's name, stripped; `optional`: may be empty (an open seat's placeholder)."""
    name = name.strip()
    if (name or not optional) and (not 1 <= len(name) <= MAX_NAME_LENGTH or not name.isprintable()):
        raise invalid_argument(field, f"A seat's name is 1 to {MAX_NAME_LENGTH} printable characters.")
    return name


def validate_age(age: int, field: str) -> None:
    if age > MAX_AGE:
        raise invalid_argument(field, f"An age is at most {MAX_AGE}.")


def validate_bot(bot: str, field: str, engine: AnyEngine) -> None:
    if bot and bot not in engine.bots:
        known = ", ".join(sorted(engine.bots))
        raise invalid_argument(field, f"Unknown bot {bot!r}: choose one of {known}, or none.")
