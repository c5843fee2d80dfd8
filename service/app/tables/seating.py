"""Use cases of open seats: join a game (by its identifier or its join code), leave it
before it starts, start it with bots in the seats nobody took, and play it again.

A join is a SeatJoined table event, appended like a move with the store's
compare-and-set on the game's version: of players racing for seats, one appends first
and each other decides again on the newer game, taking the next open seat or refused
when none is left. The join that takes the last open seat deals the game in the same
append (the deal needs every seat: Mooki's youngest starts). Each join gives the seat
a new token generation (auth.py), so a player who left cannot act for whoever joins
after them. A rematch is claimed in the store under the finished game's name, so that
every player asking for it gets the same one."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import Role, Viewer
from engines.phrases import Phrase
from service.app.access.creators import ADMIN_CREATOR, recorded_creator
from service.app.access.kit import Kit, UseCase
from service.app.games.games import Games, validate_age, validate_bot, validate_name
from service.app.model.errors import Code, ServiceError, invalid_argument, permission_denied, unauthenticated
from service.app.model.live_game import LiveGame
from service.app.model.stored import store_errors
from service.app.model.table import default_bot, refusal, table_event
from service.app.moves.steps import Step
from service.app.moves.table_changes import Change, TableChanges, dealt
from service.app.observe import request_context
from service.app.online.join_codes import normalized
from service.app.online.online import Online
from service.app.online.presence import rematch_key
from service.app.views.views import game_message
from service.app.words.catalogs import catalogs
from service.store.base import GameExists

REMATCH_LIFETIME_MS = 30 * 24 * 3600 * 1000  # how long "the rematch of this game" is remembered


class Seating(UseCase):
    def __init__(
        self, kit: Kit, changes: TableChanges, creator: Games, online: Online, new_game_id: Callable[[], str]
    ) -> None:
        super().__init__(kit)
        self._changes = changes
        self._creator = creator
        self._online = online
        self._new_game_id = new_game_id

    async def join_game(
        self, request: game_service_pb2.JoinGameRequest, token: str
    ) -> game_service_pb2.JoinGameResponse:
        name = validate_name(request.name, "name")
        if request.HasField("age"):
            validate_age(request.age, "age")
        live = await self._game(request.game_id, token)
        validate_bot(request.stand_in, "stand_in", live.engine)
        if token and not self._tokens.is_admin(token) and not self._tokens.is_host(live.game_id, token):
            seated = self._viewers.in_game(live, token)  # a token of another game: UNAUTHENTICATED
            if seated.seat is not None:
                raise refusal(
                    "ALREADY_SEATED",
                    f"Your token is seat {seated.seat}'s: a player joins a game once.",
                    Code.ALREADY_EXISTS,
                )
        taken: list[int] = []

        async def decide(live: LiveGame) -> Change:
            table = live.table
            _check_waiting(live)
            free = table.open_seats
            if request.HasField("seat"):
                if request.seat >= len(table.seats):
                    raise invalid_argument("seat", f"This game has no seat {request.seat}.")
                if request.seat not in free:
                    listed = ", ".join(str(seat) for seat in free)
                    raise refusal("SEAT_TAKEN", f"Seat {request.seat} is taken: the open seats are {listed}.")
            seat = request.seat if request.HasField("seat") else free[0]
            joined = game_pb2.SeatJoined(seat=seat, name=name, stand_in=request.stand_in)
            if request.HasField("age"):
                joined.age = request.age
            change = table_event(joined=joined)
            steps, state = [Step(None, None, [change])], live.state
            if free == [seat]:  # the last open seat: deal
                seated = table.clone()
                seated.apply_change(change)
                state, deal = await dealt(live, seated, live.version + 1, self._bots)
                steps += deal
            taken[:] = [seat]
            return Change(steps, state, f"table/join-{uuid.uuid4().hex}")

        live, _ = await self._changes.make(live.game_id, decide)
        seat = taken[0]
        request_context.note(seat=seat)
        kind = live.engine.kind
        self._metrics.labelled(self._metrics.joins, kind).inc()
        if live.table.started:
            self._metrics.labelled(self._metrics.games_started, kind, "full").inc()
        return game_service_pb2.JoinGameResponse(
            game_id=live.game_id,
            seat=seat,
            seat_token=self._tokens.seat_token(live.game_id, seat, live.seat_generation(seat)),
            game=await self._shown(live, Viewer.player(seat), request.locale),
        )

    async def leave_game(
        self, request: game_service_pb2.LeaveGameRequest, token: str
    ) -> game_service_pb2.LeaveGameResponse:
        live, viewer = await self._open(request.game_id, token)
        if viewer.role is Role.SPECTATOR:
            raise unauthenticated("Send your seat token (authorization: Bearer <token>) to leave your seat.")
        if viewer.seat is None:
            raise invalid_argument("authorization", "Only a seat's player can leave it: the admin has no seat.")
        seat, generation = viewer.seat, live.table.joins[viewer.seat]

        async def decide(live: LiveGame) -> Change | None:
            if live.table.started:
                raise refusal(
                    "GAME_STARTED",
                    "The game has started: its seats cannot be left now. A bot can play yours (TakeOverSeat).",
                )
            if live.table.seats[seat].open:
                return None  # left already
            change = table_event(left=game_pb2.SeatLeft(seat=seat, name=live.table.seats[seat].name))
            return Change([Step(None, None, [change])], live.state, f"table/leave-{seat}-{generation}")

        live, events = await self._changes.make(live.game_id, decide)
        if events:
            self._metrics.labelled(self._metrics.leaves, live.engine.kind).inc()
        return game_service_pb2.LeaveGameResponse(game=await self._shown(live, Viewer.spectator(), request.locale))

    async def start_game(
        self, request: game_service_pb2.StartGameRequest, token: str
    ) -> game_service_pb2.StartGameResponse:
        live = await self._games.load(request.game_id)
        admin = self._tokens.is_admin(token)
        if not admin and not self._tokens.is_host(live.game_id, token):
            if not token:
                raise unauthenticated("Send the host token (from CreateGame) to start the game.")
            raise permission_denied("Only the game's host (its host token from CreateGame) or the admin can start it.")
        bot = request.bot or default_bot(live.engine)
        validate_bot(bot, "bot", live.engine)
        if all(seat.open or seat.bot for seat in live.table.seats) and not live.table.started:
            # Nobody seated: a game of bots only, which creation limits (limits.py).
            creator = ADMIN_CREATOR if admin else recorded_creator(live.record.created_by)
            await self._creator.quotas.admit_bots_only(creator, live.game_id)

        live, events = await self.seat_bots(live.game_id, bot, request.locale)
        if events:
            self._metrics.labelled(self._metrics.games_started, live.engine.kind, "host").inc()
        viewer = Viewer.admin() if admin else Viewer.spectator()
        return game_service_pb2.StartGameResponse(game=await self._shown(live, viewer, request.locale))

    async def seat_bots(self, game_id: str, bot: str, locale: str) -> tuple[LiveGame, list[game_pb2.Event]]:
        """Deals the game with `bot` in every open seat (bots named in `locale`): the
        game and the events appended (none: it had started meanwhile), FAILED_PRECONDITION
        when it had started before. StartGame's, and a quick match's when its bots are due."""

        async def decide(live: LiveGame) -> Change:
            table = live.table
            _check_waiting(live)
            free = table.open_seats
            changes = [
                table_event(joined=game_pb2.SeatJoined(seat=seat, name=_bot_name(bot, n, len(free), locale), bot=bot))
                for n, seat in enumerate(free, start=1)
            ]
            seated = table.clone()
            for change in changes:
                seated.apply_change(change)
            state, deal = await dealt(live, seated, live.version + len(changes), self._bots)
            return Change([Step(None, None, list(changes)), *deal], state, "table/start")

        return await self._changes.make(game_id, decide)

    async def play_again(
        self, request: game_service_pb2.PlayAgainRequest, token: str
    ) -> game_service_pb2.PlayAgainResponse:
        live, viewer = await self._open(request.game_id, token)
        if viewer.role is Role.SPECTATOR:
            raise unauthenticated("Send your seat token (or the admin's) to ask for a rematch.")
        if not live.table.started or not live.status.finished:
            raise refusal("GAME_NOT_OVER", "The game is not over yet: a rematch comes after it.")
        with store_errors():
            rematch_id = await self._online.coordination.claim(
                rematch_key(live.game_id), self._new_game_id(), REMATCH_LIFETIME_MS
            )
        rematch = await self._rematch(live, rematch_id)
        response = game_service_pb2.PlayAgainResponse(game_id=rematch_id)
        if viewer.seat is not None:
            response.seat = viewer.seat
            response.seat_token = self._tokens.seat_token(rematch_id, viewer.seat)
        else:
            response.seat_tokens.extend(self._tokens.seat_token(rematch_id, s.index) for s in rematch.table.seats)
        response.game.CopyFrom(await self._shown(rematch, viewer, request.locale))
        return response

    async def _rematch(self, live: LiveGame, rematch_id: str) -> LiveGame:
        """The rematch under its claimed identifier: dealt now unless it was already."""
        try:
            return await self._games.load(rematch_id)
        except ServiceError as error:
            if error.code is not Code.NOT_FOUND:
                raise
        record = live.record
        again = game_service_pb2.CreateGameRequest(
            kind=record.kind, options=live.table.options, visibility=record.visibility
        )
        if record.HasField("clock"):
            again.clock.CopyFrom(record.clock)
        for seat in live.table.seats:
            spec = again.seats.add(name=seat.name, bot=seat.bot, stand_in=seat.stand_in)
            if seat.HasField("age"):
                spec.age = seat.age
        # Created for the finished game's creator (their quotas count it), without asking
        # the creation policy: the caller's seat of the finished game is their right to it.
        creator = recorded_creator(record.created_by)
        try:
            await self._creator.create(again, creator, Viewer.spectator(), rematch_id)
        except GameExists:
            pass  # another player's PlayAgain dealt it first
        else:
            self._metrics.labelled(self._metrics.rematches, record.kind).inc()
            with store_errors():
                await self._online.presence.notify(live.game_id)  # its Play sessions hear of it
        return await self._games.load(rematch_id)

    async def _game(self, game_id_or_code: str, token: str) -> LiveGame:
        """The game named by its identifier, or by its join code while it waits for its
        players. Every code that does not find such a game gets the same answer (so a
        guess tells nothing of started, finished or deleted games), and the codes tried
        are counted per client address: past --join-code-rate a minute, 429."""
        code = normalized(game_id_or_code)
        if code is None:
            return await self._games.load(game_id_or_code)
        if not self._tokens.is_admin(token):
            await self._creator.quotas.guess_join_code(self._creator.client_identity())
        game_id = await self._online.join_codes.game_of(code)
        try:
            live = await self._games.load(game_id or game_id_or_code)
        except ServiceError as error:
            if error.code is not Code.NOT_FOUND:
                raise
            live = None
        if live is None or (game_id is not None and live.table.started):
            raise ServiceError(
                Code.NOT_FOUND,
                f"No game waits for players with the join code {code!r} (a code lasts a week, until its game starts).",
            )
        return live

    async def _shown(self, live: LiveGame, viewer: Viewer, locale: str) -> game_pb2.Game:
        game = game_message(live, viewer, locale, self._now_ms())
        await self._online.show(live, game)
        return game


def _check_waiting(live: LiveGame) -> None:
    """Raises FAILED_PRECONDITION unless the game still waits for its players."""
    if live.table.started:
        if live.status.finished:
            raise refusal("GAME_OVER", "This game is over: ask its players for a rematch, or join another game.")
        raise refusal("GAME_FULL", "Every seat of this game is taken: it has started.")


def _bot_name(bot: str, number: int, count: int, locale: str) -> str:
    """A bot's name in the host's language: "Greedy bot 2", « Robot malin 2 »."""
    return catalogs().words(locale).text(Phrase(f"bot.name.{bot}")) + (f" {number}" if count > 1 else "")
