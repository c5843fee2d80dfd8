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
from service.app.logs.verify import Problem, payload_of, verify
from service.app.model.errors import Code, ServiceError, invalid_argument, permission_denied, unauthenticated
from service.app.model.heavy_reads import HeavyReads
from service.app.model.live_game import LiveGame
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
        checked = verify(log)
        if isinstance(checked, Problem):
            field = "log.header" if checked.index is None else f"log.events[{checked.index}]"
            if checked.rules_mismatch:
                raise ServiceError(Code.FAILED_PRECONDITION, f"This log cannot be replayed: {checked.reason}.")
            raise invalid_argument(field, f"The log breaks the rules at {checked.where}: {checked.reason}.")
        engine = checked.engine
        events = list(log.events)
        if request.HasField("truncate_at"):
            events = events[: _cut(events, request.truncate_at)]
        now = self._now_ms()
        record = game_pb2.GameRecord(
            game_id=self._new_game_id(),
            kind=engine.kind,
            seats=seats,
            options=log.header.options,
            seed=log.header.seed,
            created_at=timestamp(now),
            rules_version=engine.rules_version,
            visibility=game_pb2.VISIBILITY_UNLISTED,
            created_by=ADMIN_IDENTITY,
            clock=log.header.clock if log.header.HasField("clock") else None,
        )
        live = LiveGame(record, engine, engine.initial_state(), 0, now)
        live.event_limit = self._games.repository.event_limits.get(engine.kind, 0)
        given = [_as_stored(event) for event in events]
        for event in given:
            live.apply(event)  # the state, and the table: who sits and plays where, the clocks
        # A cut where a bot was to act: it plays; a log past this server's limit stops.
        every = self._games.snapshots.every
        state, bot_steps = await play_bots(live, live.state, len(events), snapshot_every=every, choices=self._bots)
        # The verification folded every state: the imported events' snapshots cost nothing.
        versions = range(every, len(events) + 1, every) if every else range(0)
        imported = [(version, checked.states[version]) for version in versions]
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


def _cut(events: list[game_pb2.Event], cut: int) -> int:
    """`cut` if it falls between two moves: before a command's first event, unless a
    table event before it says why it was played (a timeout's stand-in move)."""
    starts = [
        e.version - 1
        for e in events
        if e.HasField("command") and not (e.version > 1 and events[e.version - 2].HasField("table"))
    ] + [len(events)]
    if cut not in starts or cut == 0:
        nearest = ", ".join(str(v) for v in starts[:3]) + (" ..." if len(starts) > 3 else "")
        raise invalid_argument("truncate_at", f"Cut between two moves, e.g. at {nearest}; not at {cut}.")
    return cut


def _as_stored(event: game_pb2.Event) -> game_pb2.Event:
    """A logged event as the store keeps it: not marked last (the import may go on),
    without descriptions (words for one reader, never stored: an exported log has them)."""
    copy = game_pb2.Event()
    copy.CopyFrom(event)
    copy.game_over = False
    copy.ClearField("description")
    if copy.HasField("command"):
        copy.command.ClearField("description")
        del copy.command.choices[:]
    return copy


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
