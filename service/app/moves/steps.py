"""The steps that follow a decision: a command's events, then the moves of the bots it
lets play (each chosen where model/bot_choices.py says: inline, or in a worker process), and
the end of a game that reaches its event limit; each step as the writer (writer.py)
stamps and stores it. And the slices a long loop hands the event loop back in."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from engines.contract import RuleViolation
from service.app.model import envelopes
from service.app.model.bot_choices import BotChoices
from service.app.model.errors import Code, ServiceError
from service.app.model.lazy_random import LazyRandom
from service.app.model.live_game import LiveGame
from service.app.model.seeding import DECIDE, game_rng
from service.app.model.snapshots import passes

# A game's bots may not play more moves than this in a row: a guard against an
# engine whose bots never hand the turn back (the event limit stops any game first,
# unless a bot's move makes no event).
MAX_BOT_MOVES = 100_000
# A chain of bot moves hands the event loop back this often (seconds), so that other
# requests are served while an all-bot game plays itself out; and after this many steps
# at most, whatever the clock says (a bound that does not depend on the machine's speed).
BOT_SLICE_SECONDS = 0.002
BOT_SLICE_STEPS = 256


class Slices:
    """A long loop's turns: `await slices.tick()` at each step hands the event loop back
    once BOT_SLICE_SECONDS have passed since the last time, or BOT_SLICE_STEPS steps, so
    that other requests are served while the loop runs (a chain of bot moves, its events
    wrapped or folded)."""

    __slots__ = ("_ends", "_steps")

    def __init__(self) -> None:
        self._ends = time.perf_counter() + BOT_SLICE_SECONDS
        self._steps = 0

    async def tick(self) -> None:
        self._steps += 1
        if self._steps >= BOT_SLICE_STEPS or time.perf_counter() > self._ends:
            await asyncio.sleep(0)  # let other requests in
            self._ends = time.perf_counter() + BOT_SLICE_SECONDS
            self._steps = 0


@dataclass(slots=True)
class Step:
    """One command's worth of events: a player's command or a bot's; or, with no seat,
    events of the game itself (its deal, or its stop) or table events
    (game_pb2.TableEvent payloads)."""

    seat: int | None
    command: game_pb2.Command | None
    payloads: list[Message]
    state: Any = None  # the state after the step, kept when it is to be snapshotted


def rng(live: LiveGame, purpose: str, version: int) -> random.Random:
    """The randomness of one decision, derived from the game's secret seed. Seeded on its
    first draw only: most decisions draw nothing (service/app/model/lazy_random.py)."""
    seed = live.record.seed
    return LazyRandom(lambda: game_rng(seed, purpose, version))


def stop_if_too_long(live: LiveGame, state: Any, version: int) -> tuple[Any, Step | None]:
    """A game that has `version` >= its event limit events and is not over is stopped
    now (engines/limits.py): the state after, and the step of the stop's events."""
    engine, event_limit = live.engine, live.limit
    if version < event_limit or engine.status(state).finished:
        return state, None
    payloads = engine.stop(state, event_limit)
    for item in payloads:
        state = engine.evolve(state, item)
    return state, Step(None, None, payloads)


async def bot_step(
    live: LiveGame, state: Any, version: int, bots: Mapping[int, str], choices: BotChoices
) -> tuple[Any, Step] | None:
    """The next step after `version` events: the stop of a game at its event limit, or
    the move of a bot the game waits for (deterministic from the seed, chosen by
    `choices`); None when the game is over or waits for no bot."""
    state, stop = stop_if_too_long(live, state, version)
    if stop is not None:
        return state, stop
    engine = live.engine
    status = engine.status(state)
    seat = next((s for s in status.to_act if s in bots), None)
    if status.finished or seat is None:
        return None
    payload = await choices.choose(live, bots[seat], state, seat, version)
    try:
        payloads = engine.decide(state, seat, payload, rng(live, DECIDE, version))
    except RuleViolation as violation:  # a bot must only play legal moves
        raise ServiceError(
            Code.INTERNAL, f"bot {bots[seat]!r} played an illegal move: {violation.message}"
        ) from violation
    for item in payloads:
        state = engine.evolve(state, item)
    return state, Step(seat, envelopes.command(engine.kind, payload), payloads)


async def _bot_chain(
    live: LiveGame, state: Any, version: int, bots: Mapping[int, str] | None, choices: BotChoices
) -> AsyncIterator[tuple[Any, Step]]:
    """The steps that follow `version` events, one at a time with the state after each:
    the bots' moves while the game waits for one, or its stop at its event limit (the
    last step then)."""
    bots = live.table.bots if bots is None else bots
    for _ in range(MAX_BOT_MOVES):
        found = await bot_step(live, state, version, bots, choices)
        if found is None:
            return
        state, step = found
        yield state, step
        if step.seat is None:  # the game's stop: nothing follows
            return
        version += len(step.payloads)
    raise ServiceError(Code.INTERNAL, "the bots did not hand the turn back")


async def play_bots(
    live: LiveGame,
    state: Any,
    version: int,
    bots: Mapping[int, str] | None = None,
    snapshot_every: int = 0,
    *,
    choices: BotChoices,
) -> tuple[Any, list[Step]]:
    """Plays bot seats while the game waits for one, and stops the game once it reaches
    its event limit between two steps. `bots`: who plays which seat, when the steps
    before these changed it (default: the table's); `choices`: where each bot chooses
    (model/bot_choices.py: a search in a worker, the loop serving others meanwhile). Yields
    the event loop every BOT_SLICE_SECONDS of a long chain. Keeps the state after each
    step that passes a multiple of `snapshot_every` (service/app/model/snapshots.py)."""
    if not (live.table.bots if bots is None else bots) and version < live.limit:
        return state, []  # no bot to play, and the limit not reached: nothing follows (bot_step)
    steps: list[Step] = []
    slices = Slices()
    after_steps = state
    async for after_steps, step in _bot_chain(live, state, version, bots, choices):
        after = version + len(step.payloads)
        if passes(version, after, snapshot_every):
            step.state = after_steps
        steps.append(step)
        version = after
        await slices.tick()
    return after_steps, steps
