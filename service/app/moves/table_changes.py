"""Table changes stored: the events of a join, a leave, a start, a timeout, a take-over
or a hand back, and the deal or the moves they let happen, appended like a move.

A change is decided on the game's latest state, then appended with the store's
compare-and-set on that version; when another process moved first, the game catches
up and the change is decided again (it may then be refused, or have nothing left to
do: a timeout another process already played). A change carries a key that names it
(e.g. "timeout/12"): stored like a command id, it makes a retried change, or the same
change decided by two processes, happen once."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, fold
from service.app.access.limits import Quotas
from service.app.keeping.retention import RetentionPolicy
from service.app.model import envelopes
from service.app.model.errors import Code, ServiceError
from service.app.model.live import LiveGame, LiveGames
from service.app.model.seeding import SETUP, game_rng
from service.app.model.stored import store_errors
from service.app.model.table import Table
from service.app.moves.steps import Step, play_bots_now, stamp
from service.app.observe import request_context, tracing
from service.app.observe.metrics import Metrics
from service.app.views.views import STATUS_NAMES, status_code, summary
from service.store.base import CountersChanged, VersionConflict


@dataclass(frozen=True, slots=True)
class Change:
    """What a table change decided: its steps (table events first), the game's state
    after them, and the key that names it (its events' command id after the '/')."""

    steps: list[Step]
    state: Any
    key: str


# Decides a change on the game as it stands; None when there is nothing to do (any
# more). Raises ServiceError to refuse it.
Decide = Callable[[LiveGame], Change | None]


def dealt(live: LiveGame, table: Table, version: int) -> tuple[Any, list[Step]]:
    """The deal of a game whose seats are all taken (as `table` has them), then the bot
    moves it lets happen: the steps that follow `version` events."""
    engine = live.engine
    payload = envelopes.unwrap(live.record.options, engine.kind, "options", allow_empty=True)
    infos: list[SeatInfo] = table.infos
    options = engine.resolve_options(payload, infos)
    deal = engine.setup(options, infos, game_rng(live.record.seed, SETUP, 0))
    state, bot_steps = play_bots_now(live, fold(engine, deal), version + len(deal), table.bots)
    return state, [Step(None, None, list(deal)), *bot_steps]


def preview(live: LiveGame, events: Sequence[game_pb2.Event]) -> LiveGame:
    """The game as it will be once `events` are stored (the live game is left alone)."""
    ahead = LiveGame(live.record, live.engine, live.state, live.version, live.updated_at_ms)
    ahead.table, ahead.losses, ahead.event_limit = live.table.clone(), list(live.losses), live.event_limit
    for event in events:
        ahead.apply(event)
    return ahead


class TableChanges:
    def __init__(
        self,
        games: LiveGames,
        metrics: Metrics,
        now_ms: Callable[[], int],
        max_conflict_retries: int,
        on_moved: Callable[[LiveGame, int], Awaitable[None]],
        quotas: Quotas,
        retention: RetentionPolicy,
    ) -> None:
        self._games = games
        self._metrics = metrics
        self._now_ms = now_ms
        self._max_retries = max_conflict_retries
        self._on_moved = on_moved
        self._quotas = quotas
        self._retention = retention

    async def make(self, game_id: str, decide: Decide) -> tuple[LiveGame, list[game_pb2.Event]]:
        """Decides and stores a change; the game after it and the events stored (none
        when there was nothing to do, or when the change had been made already)."""
        games = self._games
        with tracing.span("table_change", game_id=game_id):
            async with games.lock(game_id):
                return await self._make(game_id, decide)

    async def _make(self, game_id: str, decide: Decide) -> tuple[LiveGame, list[game_pb2.Event]]:
        games = self._games
        live = await games.load(game_id)
        for _ in range(self._max_retries):
            with tracing.span("decide", version=live.version):
                change = decide(live)
            if change is None:
                return live, []
            name = change.key.split("/", 1)[1]  # e.g. "join-<uuid>", "timeout-12": the events' command id
            tracing.annotate(change=name.split("-", 1)[0], version=live.version)
            request_context.note(command_id=name)
            now = self._now_ms()
            previous, head = live.version, live.head
            finished = live.engine.status(change.state).finished
            events = await stamp(live, previous, change.steps, name, now, finished)
            stored = [event.SerializeToString() for event in events]
            ahead = preview(live, events)
            label = STATUS_NAMES[status_code(ahead.status, ahead.table.started)]
            fingerprint = hashlib.sha256(change.key.encode()).digest()
            live.traced_move = tracing.this_move(previous + 1, previous + len(events))
            try:
                with store_errors(), tracing.span("append", expected_version=previous):
                    result = await games.store.append(
                        game_id,
                        previous,
                        stored,
                        change.key,
                        fingerprint,
                        label,
                        summary(ahead).SerializeToString(),
                        now,
                        self._retention.keep(label, now),
                        after=head,  # never build on a history this cache did not see
                        counters_revision=live.counters_revision,
                    )
            except VersionConflict as conflict:
                live.traced_move = None
                self._metrics.labelled(self._metrics.append_conflicts, live.engine.kind).inc()
                if conflict.current < live.version:
                    await games.store_behind(live)  # the store lost versions: it is the truth
                else:
                    await games.refresh(live)  # another process moved first: catch up, decide again
                continue
            except CountersChanged:  # a seat token was rotated: a join's token must count it
                live.traced_move = None
                await games.reload_counters(live)
                continue
            if result.replayed:  # made already (a retry, or another process deciding the same)
                live.traced_move = None
                await games.refresh(live)
                return live, []
            live.moved(events, stored, change.state, now)
            await self._on_moved(live, previous)
            if finished:
                self._metrics.game_finished(live.engine.kind, bool(live.status.winners))
                await self._quotas.game_over(live.record.created_by, live.game_id)
            return live, events
        raise ServiceError(Code.ABORTED, "The game is changing too fast: try again.")
