"""ExportGame's log, made from bytes: the game's record and stored events, the viewer and
the language (so that a worker process can make it: heavy_reads.py), the same bytes
whether made there or inline; and the exports of finished games, kept once made (they
never change)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from ludotheque.v1 import game_pb2

from engines.contract import Viewer
from engines.registry import GAMES
from service.app.model import gamelog
from service.app.model.json_answers import Keeping, Style
from service.app.model.live_game import LiveGame
from service.app.model.stored import parse_event
from service.app.views.views import anonymise_seats, audience_for, redact, viewer_message
from service.settings import at_least, setting
from service.store.base import StoredEvent


def export_log(live: LiveGame, viewer: Viewer, locale: str, stored: Sequence[StoredEvent]) -> game_pb2.GameLog:
    """The log of `live` (its `stored` events) as `viewer` may read it now, described in
    `locale`: during the game, as the viewer may recall it (the memory rule)."""
    log = game_pb2.GameLog(header=gamelog.header(live.record, viewer_message(viewer)))
    audience = audience_for(live, viewer, locale)
    if audience.anonymous:
        anonymise_seats(log.header.seats)
    now = live.state
    for item in stored:
        redacted = redact(live.engine, parse_event(item), viewer, audience, now)
        if redacted is not None:
            log.events.append(redacted)
    return log


def export_in_worker(record: bytes, stored: Sequence[StoredEvent], viewer: Viewer, locale: str) -> bytes:
    """A worker's job: the game rebuilt from its record and every stored event (the
    state now, the table's seats), then its log as `export_log` makes it, encoded."""
    game = game_pb2.GameRecord.FromString(record)
    engine = GAMES[game.kind].engine  # (served: the server checked it as it loaded the game)
    live = LiveGame(game, engine, engine.initial_state(), 0, 0)
    for item in stored:
        live.apply(parse_event(item))
    return export_log(live, viewer, locale, stored).SerializeToString()


@dataclass(frozen=True, slots=True)
class ExportSettings:
    cache_bytes: int = setting(
        64 << 20,
        "bytes of finished games' exports kept in each server process (made once, served again: they never "
        "change); 0: none kept",
        name="export_cache_bytes",
        check=at_least(0),
    )


class ExportCache:
    """Encoded exports of finished games, and their JSON once written (REST's, Connect's:
    json_answers.py), the least recently served dropped past `most` bytes in all."""

    def __init__(self, most: int) -> None:
        self._most = most
        self._kept: OrderedDict[Hashable, bytes] = OrderedDict()  # (key) or (key, style) -> bytes
        self._bytes = 0
        self.made = 0  # exports put here (a test counts them)

    def get(self, key: Hashable) -> bytes | None:
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def put(self, key: Hashable, data: bytes) -> None:
        self.made += 1
        self.keep(key, data)

    def json_of(self, key: Hashable) -> Keeping:
        """Where the JSON of the export kept under `key` is kept, by style."""
        return _KeptJson(self, key)

    def keep(self, key: Hashable, data: bytes) -> None:
        """Keeps `data` under `key` (not counted as an export made)."""
        if len(data) > self._most or key in self._kept:
            return
        self._kept[key] = data
        self._bytes += len(data)
        while self._bytes > self._most:
            _, dropped = self._kept.popitem(last=False)
            self._bytes -= len(dropped)


@dataclass(frozen=True, slots=True)
class _KeptJson:
    """An export's JSON in the cache, beside its protobuf encoding (dropped on their own
    when least recently served)."""

    cache: ExportCache
    key: Hashable

    def get(self, style: Style) -> bytes | None:
        return self.cache.get((self.key, style))

    def put(self, style: Style, data: bytes) -> None:
        self.cache.keep((self.key, style), data)
