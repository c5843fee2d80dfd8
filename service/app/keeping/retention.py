"""Retention: finished games, and abandoned ones (no move for a while), expire after
an optional export of their complete log; and the admin's DeleteGame.

Every write tells the store how long to keep the game (`RetentionPolicy.keep`): when
to review it (its time to live after this write, by its status; a day from now for a
game kept forever, so that a setting changed later reaches it), and when the store may
drop it by itself should no server have reviewed it by then (a day after the review:
on Redis every key of the game expires then, a backstop). Each server process reviews
the games due every `interval` seconds: a game that must stay (it moved since, or the
setting is longer now) gets a later review; one that must go is claimed (one process
at a time), exported when a directory is set (`<dir>/<game_id>.jsonl`, the admin's log
of `ludotheque export`, written whole or not at all), then deleted unless it moved
meanwhile. A game the store dropped by itself is unlisted. A game that goes unfinished
no longer counts against its creator's live games (service/app/access/limits.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import Viewer
from engines.registry import ENGINES
from service.app.access.kit import Kit, UseCase
from service.app.model import gamelog
from service.app.model.errors import Code, ServiceError, invalid_argument, permission_denied, unauthenticated
from service.app.model.live import GAME_ID_PATTERN
from service.app.model.stored import parse_event, store_errors
from service.app.model.table import Table
from service.app.views.descriptions import Audience
from service.app.views.listing import STATUS_NAMES
from service.app.views.views import redact
from service.settings import setting
from service.store.base import EventStore, GameInfo, GameNotFound, Keep, StoreError, StoreUnavailable

log = logging.getLogger(__name__)

DAY_MS = 24 * 3600 * 1000
FINISHED = STATUS_NAMES[game_pb2.GAME_STATUS_FINISHED]
# How long the store keeps a game past its review time, should no server review it.
EXPIRY_MARGIN_MS = DAY_MS
# A game kept forever is reviewed again this often (a shorter setting may have come).
FOREVER_REVIEW_MS = DAY_MS
# How long a process may take to export and delete a game it claimed.
CLAIM_MS = 5 * 60 * 1000
REVIEW_BATCH = 100


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """How long games are kept: seconds after the last event of a finished game, and
    without a move for an unfinished one (0: forever); where to export them first."""

    finished_ttl: float = setting(
        30 * 24 * 3600.0,
        "seconds a finished game is kept after its last event, then deleted (exported first with "
        "--expired-games-dir); 0: forever",
        name="finished_game_ttl",
    )
    abandoned_ttl: float = setting(
        7 * 24 * 3600.0,
        "seconds an unfinished game may go without a move before it is deleted as abandoned (exported "
        "first with --expired-games-dir); 0: forever",
        name="abandoned_game_ttl",
    )
    export_dir: str = setting(
        "",
        "a directory where each expiring game's complete log is written first (<game_id>.jsonl, as "
        "'ludotheque export' writes it); empty: no export",
        name="expired_games_dir",
    )
    interval: float = setting(60.0, "seconds between two reviews of the games due to expire", name="retention_interval")

    def __post_init__(self) -> None:
        if self.finished_ttl < 0 or self.abandoned_ttl < 0 or self.interval <= 0:
            raise ValueError("times to live are seconds (0: forever); the review interval is positive")

    def ttl_ms(self, status: str) -> int:
        """The time to live of a game of this status label after its last write (0: forever)."""
        return int(1000 * (self.finished_ttl if status == FINISHED else self.abandoned_ttl))

    def expires_at(self, status: str, last_write_ms: int) -> int:
        """When a game of this status last written then must go (0: never)."""
        ttl = self.ttl_ms(status)
        return last_write_ms + ttl if ttl else 0

    def keep(self, status: str, last_write_ms: int, now_ms: int | None = None) -> Keep:
        """What the store is told at a write (now_ms: of a review, later than the write)."""
        expires = self.expires_at(status, last_write_ms)
        if not expires:
            return Keep(review_at_ms=(now_ms or last_write_ms) + FOREVER_REVIEW_MS, expire_at_ms=0)
        return Keep(review_at_ms=expires, expire_at_ms=expires + EXPIRY_MARGIN_MS)


class Retention(UseCase):
    def __init__(self, kit: Kit, policy: RetentionPolicy) -> None:
        super().__init__(kit)
        self.policy = policy
        self.owner = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"

    @property
    def _store(self) -> EventStore:
        return self._games.store

    # --- DeleteGame -----------------------------------------------------------------

    async def delete_game(
        self, request: game_service_pb2.DeleteGameRequest, token: str
    ) -> game_service_pb2.DeleteGameResponse:
        if not self._viewers.tokens.is_admin(token):
            if token:
                raise permission_denied("Only the admin may delete a game.")
            raise unauthenticated("Send the admin token to delete a game.")
        if not GAME_ID_PATTERN.match(request.game_id):
            raise invalid_argument("game_id", "game_id must be 1 to 64 letters, digits, '-' or '_'.")
        with store_errors():
            info = await self._store.info(request.game_id)
            await self._store.delete(request.game_id)
        await self._gone(info, "deleted")
        return game_service_pb2.DeleteGameResponse()

    # --- the reviews -----------------------------------------------------------------

    async def run_until(self, stop: asyncio.Event) -> None:
        """Reviews the games due every `interval` seconds until `stop` is set."""
        while not stop.is_set():
            try:
                while await self.review() == REVIEW_BATCH:
                    pass  # a backlog: go on at once
            except StoreUnavailable as error:
                log.debug("retention: %s", error)  # readiness reports the store down already
            except ServiceError as error:
                if error.code is not Code.UNAVAILABLE:
                    log.exception("retention: a review failed; trying again in %.0fs", self.policy.interval)
                log.debug("retention: %s", error.message)
            except Exception:
                log.exception("retention: a review failed; trying again in %.0fs", self.policy.interval)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.policy.interval)

    async def review(self) -> int:
        """Reviews the games due now; returns how many were due."""
        due = await self._store.due_games(self._now_ms(), REVIEW_BATCH)
        for game_id in due:
            try:
                await self._review(game_id)
            except GameNotFound:
                await self._store.forget(game_id)  # gone by itself (or deleted meanwhile)
        return len(due)

    async def _review(self, game_id: str) -> None:
        store, now = self._store, self._now_ms()
        info = await store.info(game_id)
        expires = self.policy.expires_at(info.status, info.updated_at_ms)
        if not expires or expires > now:
            await store.keep(game_id, self.policy.keep(info.status, info.updated_at_ms, now))
            return
        if not await store.claim(game_id, self.owner, now + CLAIM_MS, now):
            return  # another process is on it
        if self.policy.export_dir and not await self._export(info):
            return  # tried again once the claim runs out
        if await store.delete(game_id, version=info.version):
            await self._gone(info, "finished" if info.status == FINISHED else "abandoned")
        # else it moved meanwhile: the write that moved it set its next review

    async def _gone(self, info: GameInfo, reason: str) -> None:
        self._games.cache.forget(info.game_id)
        if info.status != FINISHED:  # (a finished game left its creator's quota as it finished)
            record = game_pb2.GameRecord.FromString(info.record)
            await self._quotas.game_over(record.created_by, info.game_id)
        self._metrics.labelled(self._metrics.games_expired, info.kind, reason).inc()
        log.info("game %s (%s, %d events) %s", info.game_id, info.kind, info.version, reason)

    async def _export(self, info: GameInfo) -> bool:
        """Writes the game's complete log (the admin's) to the export directory."""
        try:
            stored = await self._store.read(info.game_id, 1, info.version)
            record = game_pb2.GameRecord.FromString(info.record)
            events = await _described(record, [parse_event(item) for item in stored])
            log_message = gamelog.complete_log(record, events)
            path = Path(self.policy.export_dir) / f"{info.game_id}.jsonl"
            await asyncio.to_thread(_write_whole, path, gamelog.to_jsonl(log_message).encode())
        except (OSError, StoreError) as error:
            self._metrics.labelled(self._metrics.game_exports_failed, info.kind).inc()
            log.error("game %s could not be exported before it expires: %s", info.game_id, error)
            return False
        return True


async def _described(record: game_pb2.GameRecord, events: list[game_pb2.Event]) -> list[game_pb2.Event]:
    """The events described in English, as ExportGame gives them to the admin (and
    `ludotheque export` writes them); as stored when this server plays other rules."""
    engine = ENGINES.get(record.kind)
    if engine is None or engine.rules_version != record.rules_version:
        return events
    table = Table(record, engine)  # the players' names, as the joins left them (ExportGame's words)
    for event in events:
        if event.HasField("table"):
            table.apply_change(event.table)
    audience = Audience.of(table.seats, "")
    described = []
    for index, event in enumerate(events, start=1):
        described.append(redact(engine, event, Viewer.admin(), audience) or event)
        if index % gamelog.EXPORT_SLICE == 0:
            await asyncio.sleep(0)  # a long game's log: let other requests in
    return described


def _write_whole(path: Path, data: bytes) -> None:
    """Writes `path` whole or not at all (a temporary file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with temporary.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
