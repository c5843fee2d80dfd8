"""Use cases of game logs: export a game's log as a viewer may read it (during the
game, as it may recall it: `Engine.recall`), import a verified log as a new game."""

from __future__ import annotations

from collections.abc import Callable

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import Viewer
from engines.registry import ENGINES, get_engine
from service.app.access.creators import ADMIN_IDENTITY
from service.app.access.kit import Kit, UseCase
from service.app.games.games import resolve_options, validate_seats
from service.app.logs.exports import ExportCache, ExportSettings, export_in_worker, export_log
from service.app.logs.import_replay import import_in_worker, replay_import
from service.app.logs.verify import payload_of
from service.app.model.errors import invalid_argument, permission_denied, unauthenticated
from service.app.model.heavy_reads import HeavyReads
from service.app.model.json_answers import keep_json_in
from service.app.model.stored import store_errors
from service.app.moves.steps import play_bots
from service.app.moves.writer import Writer
from service.app.views.listing import timestamp
from service.app.views.views import game_message


class Logs(UseCase):
    def __init__(
        self,
        kit: Kit,
        writer: Writer,
        new_game_id: Callable[[], str],
        heavy: HeavyReads | None = None,
        exports: ExportCache | None = None,
    ) -> None:
        super().__init__(kit)
        self._writer = writer  # the one writer of a game's events: an import's too
        self._new_game_id = new_game_id
        self._heavy = heavy or HeavyReads()  # a long game's export: made in a worker process
        self.exports = exports or ExportCache(ExportSettings().cache_bytes)  # finished games' exports

    async def export_game(
        self, request: game_service_pb2.ExportGameRequest, token: str
    ) -> game_service_pb2.ExportGameResponse:
        live, caller = await self._open(request.game_id, token)
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
        finished = live.status.finished  # its export never changes: made once
        key = (live.game_id, live.version, viewer, request.locale, live.record.visibility)
        kept = self.exports.get(key) if finished else None
        if finished:
            keep_json_in(self.exports.json_of(key))  # (over REST, Connect: written once, served again)
        if kept is not None:
            self._metrics.exports_kept.inc()
            return game_service_pb2.ExportGameResponse(log=game_pb2.GameLog.FromString(kept))
        with store_errors():
            stored = await self._games.store.read(live.game_id, 1, live.version)
        if len(stored) < self._heavy.settings.read_events:
            log = export_log(live, viewer, request.locale, stored)
            data = log.SerializeToString() if finished else b""
        else:
            record = live.record.SerializeToString()
            data = await self._heavy.run("ExportGame", token, export_in_worker, record, stored, viewer, request.locale)
            log = game_pb2.GameLog.FromString(data)
        if finished:
            self.exports.put(key, data)
        return game_service_pb2.ExportGameResponse(log=log)

    async def import_game(
        self, request: game_service_pb2.ImportGameRequest, token: str
    ) -> game_service_pb2.ImportGameResponse:
        if not self._tokens.is_admin(token):
            if token:
                raise permission_denied("Only the admin may import a game.")
            raise unauthenticated("Send the admin token to import a game.")
        log = request.log
        seats = check_header(log.header)
        engine = ENGINES[log.header.kind]  # (check_header found it)
        record = game_pb2.GameRecord(
            kind=engine.kind,
            seats=seats,
            options=log.header.options,
            seed=log.header.seed,
            rules_version=engine.rules_version,
            visibility=game_pb2.VISIBILITY_UNLISTED,
            created_by=ADMIN_IDENTITY,
            clock=log.header.clock if log.header.HasField("clock") else None,
        )
        cut = request.truncate_at if request.HasField("truncate_at") else None
        every = self._games.snapshots.every
        if len(log.events) < self._heavy.settings.read_events:
            verified = replay_import(record, log, cut, every)
        else:  # a long log: verified and folded in a worker process, stored here
            job = (record.SerializeToString(), log.SerializeToString(), cut, every)
            verified = await self._heavy.run("ImportGame", token, import_in_worker, *job)
        now = self._now_ms()
        record.game_id = self._new_game_id()
        record.created_at.CopyFrom(timestamp(now))
        live = verified.live(record, engine)
        live.event_limit = self._games.repository.event_limits.get(engine.kind, 0)
        # A cut where a bot was to act: it plays; a log past this server's limit stops.
        state, bot_steps = await play_bots(
            live, live.state, len(verified.given), snapshot_every=every, choices=self._bots
        )
        given, imported = verified.given, verified.snapshots
        await self._writer.create(live, bot_steps, state, now, given=given, given_states=imported, command_id="import")
        self._games.cache.remember(live)
        return game_service_pb2.ImportGameResponse(
            game_id=record.game_id,
            seat_tokens=[
                ""
                if seat.open
                else self._tokens.seat_token(record.game_id, seat.index, live.seat_generation(seat.index))
                for seat in live.table.seats
            ],
            game=game_message(live, Viewer.admin(), request.locale, now),
        )


def check_header(header: game_pb2.GameLogHeader) -> list[game_pb2.Seat]:
    """A log's header is checked as CreateGame checks a request (the same code): its
    kind, its seats (names, count, indices 0, 1, 2..., bots) and its options (the first
    seat among them), so no import makes a game a create could not."""
    engine = get_engine(header.kind)
    if engine is None:
        known = ", ".join(sorted(ENGINES))
        raise invalid_argument("log.header.kind", f"Unknown game kind {header.kind!r}: choose one of {known}.")
    seats = validate_seats(header.seats, engine, "log.header.seats")
    options = payload_of(header.options, engine.kind)
    if options is None:
        raise invalid_argument("log.header.options", f"The options are not {engine.kind!r} options.")
    resolve_options(engine, options, seats, "log.header.options")
    return seats
