"""Table changes stored: the events of a join, a leave, a start, a timeout, a take-over
or a hand back, and the deal or the moves they let happen, appended like a move
(service/app/moves/append.py).

A change is decided on the game's latest state, then appended with the store's
compare-and-set on that version; when another process moved first, the game catches
up and the change is decided again (it may then be refused, or have nothing left to
do: a timeout another process already played). A change carries a key that names it
(e.g. "table/timeout-12"): stored like a command id, it makes a retried change, or the
same change decided by two processes, happen once. The bots' moves a change lets
happen are played as a move's are: handing the event loop back in a long chain."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ludotheque.v1 import game_pb2
from opentelemetry.trace import Span

from engines.contract import SeatInfo, fold
from service.app.model import envelopes
from service.app.model.bot_choices import BotChoices
from service.app.model.live import LiveGames
from service.app.model.live_game import LiveGame
from service.app.model.seeding import SETUP, game_rng
from service.app.model.table import Table
from service.app.moves.append import Appends
from service.app.moves.steps import Step, play_bots
from service.app.moves.writer import Decision
from service.app.observe import request_context, tracing


@dataclass(frozen=True, slots=True)
class Change:
    """What a table change decided: its steps (table events first), the game's state
    after them, and the key that names it (its events' command id after the '/')."""

    steps: list[Step]
    state: Any
    key: str


# Decides a change on the game as it stands; None when there is nothing to do (any
# more). Raises ServiceError to refuse it.
Decide = Callable[[LiveGame], Awaitable[Change | None]]


async def dealt(live: LiveGame, table: Table, version: int, bots: BotChoices) -> tuple[Any, list[Step]]:
    """The deal of a game whose seats are all taken (as `table` has them), then the bot
    moves it lets happen (each chosen where `bots` says): the steps that follow
    `version` events."""
    engine = live.engine
    payload = envelopes.unwrap(live.record.options, engine.kind, "options", allow_empty=True)
    infos: list[SeatInfo] = table.infos
    options = engine.resolve_options(payload, infos)
    deal = engine.setup(options, infos, game_rng(live.record.seed, SETUP, 0))
    state, bot_steps = await play_bots(live, fold(engine, deal), version + len(deal), table.bots, choices=bots)
    return state, [Step(None, None, list(deal)), *bot_steps]


class TableChanges:
    def __init__(self, games: LiveGames, appends: Appends) -> None:
        self._games = games
        self._appends = appends

    async def make(self, game_id: str, decide: Decide) -> tuple[LiveGame, list[game_pb2.Event]]:
        """Decides and stores a change; the game after it and the events stored (none
        when there was nothing to do, or when the change had been made already)."""
        games = self._games
        with tracing.span("table_change", game_id=game_id) as span:
            async with games.cache.lock(game_id):
                live = await games.load(game_id)
                done = await self._appends.append(live, lambda game: self._decision(game, decide, span))
                if done.replayed:  # made already (a retry, or another process deciding the same)
                    await games.refresh(live)
                return live, done.events

    @staticmethod
    async def _decision(live: LiveGame, decide: Decide, span: Span) -> Decision | None:
        change = await decide(live)
        if change is None:
            return None
        name = change.key.split("/", 1)[1]  # e.g. "join-<uuid>", "timeout-12": the events' command id
        tracing.annotate_span(span, change=name.split("-", 1)[0], version=live.version)
        request_context.note(command_id=name)
        return Decision(change.steps, change.state, change.key, hashlib.sha256(change.key.encode()).digest())
