"""From decisions to stored events: a command's events, then the moves of the bots it
lets play, each stamped with its version, author and time."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from engines.contract import RuleViolation
from service.app import envelopes
from service.app.errors import Code, ServiceError
from service.app.lazy_random import LazyRandom
from service.app.live import LiveGame
from service.app.seeding import BOT, DECIDE, game_rng
from service.app.views import timestamp

# A game's bots may not play more moves than this in a row: a guard against an
# engine whose bots never hand the turn back.
MAX_BOT_MOVES = 100_000


@dataclass(slots=True)
class Step:
    """One command's worth of events: a player's command or a bot's; or, with no seat,
    the deal or table events (game_pb2.TableEvent payloads)."""

    seat: int | None
    command: game_pb2.Command | None
    payloads: list[Message]


def rng(live: LiveGame, purpose: str, version: int) -> random.Random:
    """The randomness of one decision, derived from the game's secret seed. Seeded on its
    first draw only: most decisions draw nothing (service/app/lazy_random.py)."""
    seed = live.record.seed
    return LazyRandom(lambda: game_rng(seed, purpose, version))


def play_bots(
    live: LiveGame, state: Any, version: int, bots: Mapping[int, str] | None = None
) -> tuple[Any, list[Step]]:
    """Plays bot seats while the game waits for one (deterministic from the seed). `bots`:
    who plays which seat, when the steps before these changed it (default: the table's)."""
    engine = live.engine
    if bots is None:
        bots = live.table.bots
    steps: list[Step] = []
    if not bots:
        return state, steps
    for _ in range(MAX_BOT_MOVES):
        status = engine.status(state)
        seat = next((s for s in status.to_act if s in bots), None)
        if status.finished or seat is None:
            return state, steps
        payload = engine.bots[bots[seat]](state, seat, rng(live, BOT, version))
        try:
            payloads = engine.decide(state, seat, payload, rng(live, DECIDE, version))
        except RuleViolation as violation:  # a bot must only play legal moves
            raise ServiceError(
                Code.INTERNAL, f"bot {bots[seat]!r} played an illegal move: {violation.message}"
            ) from violation
        for item in payloads:
            state = engine.evolve(state, item)
        steps.append(Step(seat, envelopes.command(engine.kind, payload), payloads))
        version += len(payloads)
    raise ServiceError(Code.INTERNAL, "the bots did not hand the turn back")


def stamp(
    live: LiveGame, version: int, steps: Sequence[Step], command_id: str, now_ms: int, finished: bool
) -> list[game_pb2.Event]:
    """The steps' events in their envelopes, numbered from `version` + 1; the last one
    says whether the game is over."""
    engine = live.engine
    recorded_at = timestamp(now_ms)
    events: list[game_pb2.Event] = []
    for step in steps:
        for index, payload in enumerate(step.payloads):
            version += 1
            if isinstance(payload, game_pb2.TableEvent):  # around the table, not in the game
                event = game_pb2.Event(table=payload)
            else:
                event = envelopes.wrap(game_pb2.Event, engine.kind, payload)
            event.version = version
            event.recorded_at.CopyFrom(recorded_at)
            event.rules_version = engine.rules_version
            event.command_id = command_id if step.seat is not None else ""
            if step.seat is not None:
                event.seat = step.seat
            if index == 0 and step.command is not None:
                event.command.CopyFrom(step.command)
            events.append(event)
    if events:
        events[-1].game_over = finished
    return events
