"""Use cases of games as a whole: create one, read one, list them."""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable, Sequence
from typing import Any

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import InvalidSetup, SeatInfo, Viewer, fold
from engines.registry import ENGINES, AnyEngine, get_engine
from service.app.access.creators import ADMIN_CREATOR, CreationPolicy, Creator
from service.app.access.kit import Kit, UseCase
from service.app.access.origins import current_origin
from service.app.model import envelopes
from service.app.model.errors import invalid_argument
from service.app.model.live_game import LiveGame
from service.app.model.seeding import SETUP, game_rng
from service.app.model.snapshots import passes
from service.app.model.stored import store_errors
from service.app.moves.steps import Step, play_bots
from service.app.moves.writer import LISTED, Writer
from service.app.observe import request_context
from service.app.online.clocks import validate_clock
from service.app.online.online import Online
from service.app.views.listing import STATUS_NAMES, reword_outcome, timestamp
from service.app.views.views import anonymised, game_message, viewer_message
from service.store.base import GameExists

# New game ids: 16 letters or digits (95 bits). No '-' or '_', so an id never
# starts like a command-line option and is easy to select with a double click.
GAME_ID_ALPHABET = string.ascii_letters + string.digits
GAME_ID_LENGTH = 16
MAX_NAME_LENGTH = 64
MAX_AGE = 150
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
MAX_PAGE_TOKEN_DIGITS = 15  # below 2**53: Redis scores (doubles) hold such positions exactly


def random_game_id() -> str:
    return "".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(GAME_ID_LENGTH))


class Games(UseCase):
    def __init__(
        self,
        kit: Kit,
        writer: Writer,
        new_game_id: Callable[[], str],
        new_seed: Callable[[], int],
        creation: CreationPolicy,
        online: Online | None = None,
    ) -> None:
        super().__init__(kit)
        self._writer = writer  # the one writer of a game's events: its creation too
        self._new_game_id = new_game_id
        self._new_seed = new_seed
        self._creation = creation
        self.quotas = kit.quotas  # Seating's too
        self._online = online

    def client_identity(self) -> str:
        """The current caller as its address tells it ("ip:<address>", IPv6 by /64)."""
        return self._creation.addresses.identity(current_origin())

    async def creator(self, token: str) -> Creator:
        """Who creates a game with this token (the admin, or whoever the policy says)."""
        if self._tokens.is_admin(token):
            return ADMIN_CREATOR
        return await self._creation.creator(token, current_origin())

    async def create_game(
        self, request: game_service_pb2.CreateGameRequest, token: str
    ) -> game_service_pb2.CreateGameResponse:
        creator = await self.creator(token)
        viewer = self._viewers.outside_game(token)
        return await self.create(request, creator, viewer, self._new_game_id())

    async def create(
        self, request: game_service_pb2.CreateGameRequest, creator: Creator, viewer: Viewer, game_id: str
    ) -> game_service_pb2.CreateGameResponse:
        """CreateGame by `creator`, answered as `viewer` sees the game, under `game_id` (a
        rematch's is claimed first). Raises GameExists."""
        engine = get_engine(request.kind)
        if engine is None:
            known = ", ".join(sorted(ENGINES))
            raise invalid_argument("kind", f"Unknown game kind {request.kind!r}: choose one of {known}.")
        seats = validate_seats(request.seats, engine)
        if request.visibility not in game_pb2.Visibility.values():
            raise invalid_argument("visibility", f"Unknown visibility {request.visibility}.")
        clock = validate_clock(request.clock) if request.HasField("clock") else None
        waits = any(seat.open for seat in seats)  # for players to join: dealt once they have
        options = engine.options_type()
        if request.HasField("options"):
            options = envelopes.unwrap(request.options, engine.kind, "options", allow_empty=True)
        resolved = resolve_options(engine, options, seats, "options")
        seed = self._new_seed()
        infos = [SeatInfo(age=s.age if s.HasField("age") else None) for s in seats]
        try:
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
            visibility=request.visibility or game_pb2.VISIBILITY_UNLISTED,
            created_by=creator.identity,
            clock=clock,
        )
        request_context.note(game_id=record.game_id, kind=engine.kind)
        # Counted before the bots play: a game of bots only plays itself out here.
        await self.quotas.admit(creator, record.game_id, bots_only=all(seat.bot for seat in seats))
        try:
            if waits and self._online is not None:
                record.join_code = await self._online.join_codes.claim(game_id)
            live = LiveGame(record, engine, engine.initial_state(), 0, now)
            live.event_limit = self._games.repository.event_limits.get(engine.kind, 0)
            state, steps = live.state, []
            if not waits:
                every = self._games.snapshots.every
                dealt = fold(engine, payloads)
                state, bot_steps = await play_bots(live, dealt, len(payloads), snapshot_every=every, choices=self._bots)
                kept = dealt if passes(0, len(payloads), every) else None
                steps = [Step(None, None, list(payloads), kept), *bot_steps]
            await self._writer.create(live, steps, state, now)
        except GameExists:
            raise  # a rematch another process created first: its quota slot is its own
        except BaseException:
            await self.quotas.release(creator, record.game_id)
            raise
        self._games.cache.remember(live)
        return game_service_pb2.CreateGameResponse(
            game_id=record.game_id,
            seat_tokens=["" if s.open else self._tokens.seat_token(record.game_id, s.index) for s in seats],
            game=game_message(live, viewer, request.locale, now),
            host_token=self._tokens.host_token(record.game_id) if waits else "",
        )

    async def get_game(self, request: game_service_pb2.GetGameRequest, token: str) -> game_pb2.Game:
        live, viewer = await self._open(request.game_id, token)
        game = game_message(live, viewer, request.locale, self._now_ms())
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
        if request.page_token and not is_page_token(request.page_token):
            raise invalid_argument("page_token", "page_token must come from a previous ListGames.")
        viewer = self._viewers.outside_game(token)
        with store_errors():
            page = await self._games.store.list_games(
                request.kind,
                STATUS_NAMES.get(request.status, ""),
                request.page_size or DEFAULT_PAGE_SIZE,
                request.page_token,
                listed_only=not viewer.is_admin,
            )
        response = game_service_pb2.ListGamesResponse(next_page_token=page.next_cursor)
        for info in page.games:
            game = response.games.add()
            game.MergeFromString(info.summary)
            game.version = info.version
            game.updated_at.CopyFrom(timestamp(info.updated_at_ms))
            game.viewer.CopyFrom(viewer_message(viewer))
            if viewer.is_admin:
                game.created_by = game_pb2.GameRecord.FromString(info.record).created_by
            elif game.visibility not in LISTED:
                del response.games[-1]  # listed by a store that lags behind its flag (never, today)
            else:
                anonymised(game)
            reword_outcome(game, request.locale)  # in the caller's language
        return response


def is_page_token(text: str) -> bool:
    """Whether `text` can be a ListGames page token: the stores' cursors are positions,
    at most MAX_PAGE_TOKEN_DIGITS ASCII digits ('²' is a digit to str.isdigit, not to int)."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_PAGE_TOKEN_DIGITS


def validate_seats(
    specs: Sequence[game_pb2.SeatSpec | game_pb2.Seat], engine: AnyEngine, field: str = "seats"
) -> list[game_pb2.Seat]:
    """The seats of a new game (CreateGame's seat specs, or an imported log's seats,
    whose indices must then be 0, 1, 2... in order), or INVALID_ARGUMENT naming the
    first field at fault."""
    if not engine.min_seats <= len(specs) <= engine.max_seats:
        span = (
            f"{engine.min_seats}"
            if engine.min_seats == engine.max_seats
            else f"{engine.min_seats} to {engine.max_seats}"
        )
        raise invalid_argument(field, f"A {engine.kind!r} game needs {span} seats, not {len(specs)}.")
    seats = []
    seen: set[int] = set()
    for index, spec in enumerate(specs):
        where = f"{field}[{index}]"
        if isinstance(spec, game_pb2.Seat) and spec.index != index:
            problem = (
                "is given twice"
                if spec.index in seen
                else "is past the last seat"
                if spec.index >= len(specs)
                else "is out of order"
            )
            raise invalid_argument(
                f"{where}.index", f"Seat {spec.index} {problem}: seats are numbered 0, 1, 2... in order."
            )
        seen.add(index)
        name = validate_name(spec.name, f"{where}.name")
        if spec.HasField("age"):
            validate_age(spec.age, f"{where}.age")
        validate_bot(spec.bot, f"{where}.bot", engine)
        if spec.open and spec.bot:
            raise invalid_argument(f"{where}.bot", "An open seat is for a player to join: not for a bot.")
        if spec.open and spec.HasField("age"):
            raise invalid_argument(f"{where}.age", "An open seat's age is its player's, given when they join.")
        validate_bot(spec.stand_in, f"{where}.stand_in", engine)
        seat = game_pb2.Seat(index=index, name=name, bot=spec.bot, open=spec.open, stand_in=spec.stand_in)
        if spec.HasField("age"):
            seat.age = spec.age
        seats.append(seat)
    return seats


def resolve_options(engine: AnyEngine, options: Any, seats: Sequence[game_pb2.Seat], field: str) -> Any:
    """The options with their defaults filled in (the first seat among them), or
    INVALID_ARGUMENT when the game cannot be dealt with them."""
    infos = [SeatInfo(age=s.age if s.HasField("age") else None) for s in seats]
    try:
        return engine.resolve_options(options, infos)
    except InvalidSetup as error:
        raise invalid_argument(field, str(error)) from error


def validate_name(name: str, field: str) -> str:
    """A player's name, stripped; "" when none is given (an open seat's, or a seat whose
    player is then "Player 2" to every reader, in the reader's language). A name given
    that strips to nothing, or is too long, is refused: it is not "no name"."""
    if not name:
        return ""
    stripped = name.strip()
    if not 1 <= len(stripped) <= MAX_NAME_LENGTH or not stripped.isprintable():
        raise invalid_argument(
            field, f'A seat\'s name is 1 to {MAX_NAME_LENGTH} printable characters, or none at all ("Player 2").'
        )
    return stripped


def validate_age(age: int, field: str) -> None:
    if age > MAX_AGE:
        raise invalid_argument(field, f"An age is at most {MAX_AGE}.")


def validate_bot(bot: str, field: str, engine: AnyEngine) -> None:
    if bot and bot not in engine.bots:
        known = ", ".join(sorted(engine.bots))
        raise invalid_argument(field, f"Unknown bot {bot!r}: choose one of {known}, or none.")
