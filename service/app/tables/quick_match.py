"""QuickMatch, play with anyone: seat the caller in the game of a kind and options that
waits for players, or create it, and let bots take its empty seats after a while if asked.

Race-safety across processes: a pointer in the store's coordination, keyed by the kind,
the number of players and a digest of the options ("the waiting game of these"), names
one game. A caller reads it (claiming a new game's identifier when it names none) and
takes a seat through JoinGame's path, atomic per game by the store's compare-and-set on
the game's version; the game is created, all seats open, by whichever caller finds it
missing first (creation under a given identifier happens once: GameExists for the
others). A caller that finds the game started (every seat taken) moves the pointer on
with the store's compare-and-set (`Coordination.replace`): of racing callers one moves
it, and all follow it to the same next game. So the pointer always names the one game
of these that may wait, and a game stops being named only once it is full: two games of
the same kind and options are never both waiting for players (a game deleted while it
waits is the exception: whoever next finds it missing creates it again).

Bots: `bots_after_seconds` asks that bots take the seats still empty that long after
the caller sat. The first seated player of the game who asks sets the deadline (a claim,
so every later caller, on any process, finds the same one) and puts it in the store's
shared schedule, where the turn clocks' deadlines are (online/clocks.py): whichever
process's clock worker sees it due deals the game with bots in the open seats, with the
same compare-and-set as StartGame, so a player joining at that moment either gets the
seat or finds the game started (and the caller's next QuickMatch seats them elsewhere).
A player who did not ask never sets a deadline; a deadline set holds for the game."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.registry import ENGINES, AnyEngine, get_engine
from service.app.access.creators import Creator
from service.app.access.kit import Kit, UseCase
from service.app.games.games import Games, resolve_options, validate_age, validate_bot, validate_name
from service.app.model import envelopes
from service.app.model.errors import Code, ServiceError, invalid_argument
from service.app.model.stored import store_errors
from service.app.model.table import default_bot, refusal_key
from service.app.online.clocks import MAX_TURN_SECONDS
from service.app.online.online import Online
from service.app.tables.seating import Seating
from service.store.base import GameExists

LIFETIME_MS = 7 * 24 * 3600 * 1000  # a waiting game is remembered as the one to join this long after it was named
ATTEMPTS = 16  # games found full in a row before giving up (each one filled while this caller looked)
CREATION_WAIT = 10.0  # seconds a caller waits for a game another caller created to show (its replicas' confirmation)
BOTS_DUE = "bots"  # the tail of a quick match's bot deadline in the schedule: "<game_id>/bots"
_MOVE_ON = {refusal_key("GAME_FULL"), refusal_key("GAME_OVER")}


def match_key(kind: str, players: int, options: Any) -> str:
    """The pointer's key: callers asking for the same game share it."""
    digest = hashlib.sha256(options.SerializeToString(deterministic=True)).hexdigest()[:32]
    return f"quick-match:{kind}:{players}:{digest}"


def bots_key(game_id: str) -> str:
    return f"quick-match-bots:{game_id}"


class QuickMatches(UseCase):
    def __init__(
        self, kit: Kit, games: Games, seating: Seating, online: Online, new_game_id: Callable[[], str]
    ) -> None:
        super().__init__(kit)
        self._creator = games
        self._seating = seating
        self._coordination = online.coordination
        self._new_game_id = new_game_id

    async def quick_match(
        self, request: game_service_pb2.QuickMatchRequest, token: str
    ) -> game_service_pb2.QuickMatchResponse:
        engine, players, key = self._validated(request)
        creator = await self._creator.creator(token)  # the creation policy, as for CreateGame
        join = game_service_pb2.JoinGameRequest(name=request.name, stand_in=request.stand_in, locale=request.locale)
        if request.HasField("age"):
            join.age = request.age
        with store_errors():
            game_id = await self._coordination.lookup(key)
            if game_id is None:
                game_id = await self._coordination.claim(key, self._new_game_id(), LIFETIME_MS)
        for _ in range(ATTEMPTS):
            created = await self._created(game_id, request, engine, players, creator)
            join.game_id = game_id
            try:
                joined = await self._seating.join_game(join, "")
            except ServiceError as error:
                if error.key not in _MOVE_ON and error.code is not Code.NOT_FOUND:
                    raise
            else:
                if request.bots_after_seconds and joined.game.status == game_pb2.GAME_STATUS_OPEN:
                    await self._bots_later(game_id, request, engine)
                how = "created" if created else "joined"
                self._metrics.labelled(self._metrics.quick_matches, engine.kind, how).inc()
                return game_service_pb2.QuickMatchResponse(
                    game_id=game_id,
                    seat=joined.seat,
                    seat_token=joined.seat_token,
                    game=joined.game,
                    created=created,
                )
            with store_errors():  # full: the next game (the same one for every caller)
                game_id = await self._coordination.replace(key, game_id, self._new_game_id(), LIFETIME_MS)
        raise ServiceError(Code.ABORTED, f"{ATTEMPTS} games filled up while looking for a seat: try again.")

    def _validated(self, request: game_service_pb2.QuickMatchRequest) -> tuple[AnyEngine, int, str]:
        """The engine, the number of players and the pointer's key; INVALID_ARGUMENT
        naming the first field at fault."""
        engine = get_engine(request.kind)
        if engine is None:
            known = ", ".join(sorted(ENGINES))
            raise invalid_argument("kind", f"Unknown game kind {request.kind!r}: choose one of {known}.")
        players = request.players or engine.min_seats
        if not engine.min_seats <= players <= engine.max_seats:
            span = f"{engine.min_seats} to {engine.max_seats}"
            raise invalid_argument("players", f"A {engine.kind!r} game has {span} players, not {players}.")
        validate_name(request.name, "name")
        if request.HasField("age"):
            validate_age(request.age, "age")
        validate_bot(request.stand_in, "stand_in", engine)
        validate_bot(request.bot, "bot", engine)
        if request.bots_after_seconds > MAX_TURN_SECONDS:
            raise invalid_argument(
                "bots_after_seconds",
                f"bots_after_seconds is 1 to {MAX_TURN_SECONDS} (a day), or 0 for no bots, "
                f"not {request.bots_after_seconds}.",
            )
        options = engine.options_type()
        if request.HasField("options"):
            options = envelopes.unwrap(request.options, engine.kind, "options", allow_empty=True)
        resolve_options(engine, options, [game_pb2.Seat(open=True) for _ in range(players)], "options")
        return engine, players, match_key(engine.kind, players, options)

    async def _created(
        self,
        game_id: str,
        request: game_service_pb2.QuickMatchRequest,
        engine: AnyEngine,
        players: int,
        creator: Creator,
    ) -> bool:
        """Creates the game the pointer names, every seat open, unless it exists: whether
        this call created it."""
        if await self._shown(game_id):
            return False
        new = game_service_pb2.CreateGameRequest(kind=engine.kind, locale=request.locale)
        if request.HasField("options"):
            new.options.CopyFrom(request.options)
        new.seats.extend(game_pb2.SeatSpec(open=True) for _ in range(players))
        try:
            await self._creator.create(new, creator, self._viewers.outside_game(""), game_id)
        except GameExists:
            pass  # another caller is creating it
        else:
            return True
        # A store with replicas shows a new game once they confirm it: its creator
        # (another process, maybe) is waiting for them. So this caller waits too.
        pause, waited = 0.005, 0.0
        while not await self._shown(game_id):
            if waited > CREATION_WAIT:
                raise ServiceError(Code.UNAVAILABLE, "The game to join is being created and not shown yet: try again.")
            await asyncio.sleep(pause)
            waited, pause = waited + pause, min(2 * pause, 0.2)
        return False

    async def _shown(self, game_id: str) -> bool:
        """Whether the game can be read (not yet: never created, or created and not
        confirmed, which a store with replicas tells as lost until it is)."""
        try:
            await self._games.load(game_id)
        except ServiceError as error:
            if error.code not in (Code.NOT_FOUND, Code.DATA_LOSS):
                raise
            return False
        return True

    async def _bots_later(self, game_id: str, request: game_service_pb2.QuickMatchRequest, engine: AnyEngine) -> None:
        """Sets the game's bot deadline unless a player set it first, and schedules it."""
        due = self._now_ms() + request.bots_after_seconds * 1000
        bot = request.bot or default_bot(engine)
        with store_errors():
            held = await self._coordination.claim(bots_key(game_id), f"{due} {bot}", LIFETIME_MS)
            await self._coordination.schedule(f"{game_id}/{BOTS_DUE}", int(held.split()[0]))

    async def bots_due(self, game_id: str) -> int:
        """The schedule says the game's bot deadline passed (clocks.py's worker): deals it
        with bots in its open seats if it still waits with a player seated. 1 if this
        call dealt it."""
        with store_errors():
            held = await self._coordination.lookup(bots_key(game_id))
        dealt = 0 if held is None else await self._bots_dealt(game_id, held.split()[-1])
        with store_errors():
            await self._coordination.unschedule(f"{game_id}/{BOTS_DUE}")
        return dealt

    async def _bots_dealt(self, game_id: str, bot: str) -> int:
        try:
            live = await self._games.load(game_id)
            if live.table.started or all(seat.open or seat.bot for seat in live.table.seats):
                return 0  # full already, or everyone left: no game of bots only
            live, events = await self._seating.seat_bots(game_id, bot, "")
        except ServiceError as error:
            if error.key in _MOVE_ON or error.code is Code.NOT_FOUND:
                return 0  # started meanwhile, or deleted
            raise
        if events:
            self._metrics.labelled(self._metrics.games_started, live.engine.kind, "quick_match_bots").inc()
        return 1 if events else 0
