"""Where a bot chooses its move (`BotChoices`): on the event loop that serves the moves,
or in the heavy-work pool's worker processes (heavy_reads.py). moves/steps.py asks it at
each bot's turn.

One rule says which: a bot named in `--heavy-bots` (HeavySettings.bots; by default
`strong`, the searching bot, up to about 100 ms of CPU a choice) chooses in a worker;
every other bot (`random`, `greedy`: microseconds, less than a round trip to a process)
chooses inline. A name no game has is simply never asked for, so the rule holds for a
bot before it is built.

A choice made in a worker is the inline one: the state goes in (pickled, as every heavy
job's arguments), with the seat, the game's seed and the version its randomness is
derived from (seeding.py: the numbers the inline LazyRandom draws);
the command comes back as its bytes. The game's lock is held meanwhile, as for any move
(a game's moves are decided one at a time), but the loop goes on serving every other game.

A bot's work is its game's, not a caller's: HeavyReads.run_for_game never refuses it and
holds it to no caller's budget (a refusal would stall the game), but counts it in the
pool's total. Whatever goes wrong in the pool (a worker killed, a job that cannot be sent),
the choice is made again inline: the same bot, the same randomness, so the same command,
the one logs/verify.py finds when it plays the bots again."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from engines.contract import Bot
from engines.registry import GAMES
from service.app.model.heavy_reads import HeavyReads
from service.app.model.lazy_random import LazyRandom
from service.app.model.live_game import LiveGame
from service.app.model.seeding import BOT, game_rng

log = logging.getLogger(__name__)

# Who plays a bot of a game: (kind, bot name) -> the bot. A module's function, so that it
# is sent to a worker by name (pickled) and found there again; the engines' by default.
FindBot = Callable[[str, str], Bot[Any, Message]]


def engine_bot(kind: str, name: str) -> Bot[Any, Message]:
    """The bot `name` of the game `kind`, as its engine declares it."""
    return GAMES[kind].engine.bots[name]


def choose_in_worker(find: FindBot, kind: str, name: str, state: Any, seat: int, seed: int, version: int) -> bytes:
    """A worker's job: the command of `kind`'s bot `name` for `seat` at `state`, with the
    randomness of the game's decision at `version`, as its bytes."""
    command = find(kind, name)(state, seat, game_rng(seed, BOT, version))
    return command.SerializeToString()


class BotChoices:
    """Chooses bots' moves, each where the rule says (one per GameApp, on its pool)."""

    def __init__(self, heavy: HeavyReads, find: FindBot = engine_bot) -> None:
        self._heavy = heavy
        self._in_workers = heavy.settings.bots
        self._find = find
        self.made_inline_again = 0  # choices the pool failed, made inline instead (tests count them)

    def in_worker(self, name: str) -> bool:
        """Whether the bot `name` chooses in a worker process."""
        return name in self._in_workers

    async def choose(self, live: LiveGame, name: str, state: Any, seat: int, version: int) -> Message:
        """The command the bot `name` plays for `seat` at `state`, `version` events into
        `live`'s game: the same wherever it is chosen."""
        kind, seed = live.engine.kind, live.record.seed
        if name not in self._in_workers:
            return self._inline(kind, name, state, seat, seed, version)
        try:
            data = await self._heavy.run_for_game(
                f"bot {name}", choose_in_worker, self._find, kind, name, state, seat, seed, version
            )
        except Exception as error:  # the pool's failure, or the bot's: inline tells which
            log.warning("a %s bot's choice failed in a worker (%s): made inline", name, error)
            self.made_inline_again += 1
            return self._inline(kind, name, state, seat, seed, version)
        command: Message = live.engine.command_type.FromString(data)
        return command

    def _inline(self, kind: str, name: str, state: Any, seat: int, seed: int, version: int) -> Message:
        # Seeded at its first draw only (lazy_random.py): most choices draw nothing.
        return self._find(kind, name)(state, seat, LazyRandom(lambda: game_rng(seed, BOT, version)))
