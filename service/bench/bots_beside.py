"""The benchmark of bots that think beside the move loop (`ludotheque bench --bots-beside`):
an honest player's move latency while bots search in other games, their choices made on
the loop, then in the heavy workers (service/app/model/bot_choices.py), side by side in
one run, after a quiet baseline.

In one process, on the memory store, without transports: what it measures is the move
loop itself (how long a move waits for it), not a network. The honest player plays Mooki
against a `random` bot, one SubmitCommand at a time. Each of the other games is a player
against a bot that thinks THINK_SECONDS of CPU before it plays greedy's move (a stand-in
for the `strong` search, whose budget is about 100 ms a move), played without pause; so a
bot is thinking nearly all the time. Both apps find their bots the same way
(`thinking_bot`); one chooses on its loop (no bot in --heavy-bots), the other in its worker
(--heavy-bots greedy, one worker at the default niceness)."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.contract import Bot
from engines.registry import GAMES
from service.bench import seam
from service.bench.percentiles import percentile

ADMIN = "bench-bots-beside-admin-token-0123456789abcdef"
THINKING = "greedy"  # the bot that thinks, in the other games
THINK_SECONDS = 0.1  # CPU a thinking bot spends on each choice
MIN_MOVES = 5  # the honest player's moves in a window at least, however slow
# A thinker's moves at least, however slow: a Mooki turn is a draw then a place, and the
# bot plays after it, so each thinker's bot has chosen once at least.
THINKER_MIN_MOVES = 2
QUIET, INLINE, IN_WORKERS = "quiet", "bots thinking on the loop", "bots thinking in the workers"


@dataclass(frozen=True, slots=True)
class BotsBesideSettings:
    window: float = 10.0  # seconds of each window
    thinkers: int = 2  # games whose bot thinks, played at once


QUICK = BotsBesideSettings(window=1.0, thinkers=1)


@dataclass(slots=True)
class BotsBesideWindow:
    name: str
    seconds: float = 0.0
    moves: list[float] = field(default_factory=list)  # the honest player's, seconds each
    bot_choices: int = 0  # the thinking bots' choices in the window, wherever made
    in_workers: int = 0  # choices made in a worker process in the window

    def percentile(self, q: float) -> float:
        return percentile(self.moves, q)

    @property
    def p50(self) -> float:
        return statistics.median(self.moves) if self.moves else float("nan")


class _Thoughts:
    """The thinking bots' choices made in this process (on its loop), counted."""

    made = 0


def spend_cpu(seconds: float) -> None:
    """Spends `seconds` of this process's CPU (a search's cost, without its result)."""
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def thinking_bot(kind: str, name: str) -> Bot[Any, Message]:
    """The engines' bots, but THINKING thinks THINK_SECONDS of CPU before it plays."""
    bot = GAMES[kind].engine.bots[name]
    if name != THINKING:
        return bot

    def think(state: Any, seat: int, rng: Any) -> Message:
        _Thoughts.made += 1  # (in a worker, the worker's count: the pool counts those)
        spend_cpu(THINK_SECONDS)
        command: Message = bot(state, seat, rng)
        return command

    return think


def bots_beside_figures(
    settings: BotsBesideSettings, progress: Callable[[str], None] = lambda _: None
) -> list[BotsBesideWindow]:
    """The three windows: quiet, bots thinking on the loop, bots thinking in the workers."""
    return asyncio.run(_windows(settings, progress))


async def _windows(settings: BotsBesideSettings, progress: Callable[[str], None]) -> list[BotsBesideWindow]:
    on_loop = _app(frozenset())
    in_workers = _app(frozenset({THINKING}))
    try:
        await in_workers.heavy_reads.run_for_game("warm-up", os.getpid)  # its worker started before
        windows = []
        for name, app, thinkers in (
            (QUIET, in_workers, 0),
            (INLINE, on_loop, settings.thinkers),
            (IN_WORKERS, in_workers, settings.thinkers),
        ):
            progress(f"bots beside: {name}")
            windows.append(await _window(name, app, thinkers, settings.window))
        return windows
    finally:
        on_loop.heavy_reads.close()
        in_workers.heavy_reads.close()


def _app(bots: frozenset[str]) -> seam.GameApp:
    return seam.in_process_app(admin=ADMIN, heavy_bots=bots, find_bot=thinking_bot)


async def _window(name: str, app: seam.GameApp, thinkers: int, seconds: float) -> BotsBesideWindow:
    window = BotsBesideWindow(name)
    served, made = app.heavy_reads.served, _Thoughts.made
    stop = asyncio.Event()
    others = [asyncio.ensure_future(_thinker(app, stop)) for _ in range(thinkers)]
    started = time.perf_counter()
    until = started + seconds
    await _play(app, "random", lambda: time.perf_counter() >= until and len(window.moves) >= MIN_MOVES, window.moves)
    stop.set()
    await asyncio.gather(*others)
    window.seconds = time.perf_counter() - started
    window.in_workers = app.heavy_reads.served - served
    window.bot_choices = _Thoughts.made - made + window.in_workers
    return window


async def _thinker(app: seam.GameApp, stop: asyncio.Event) -> None:
    """A player against the thinking bot, without pause, until `stop` (and
    THINKER_MIN_MOVES at least)."""
    moves: list[float] = []
    await _play(app, THINKING, lambda: stop.is_set() and len(moves) >= THINKER_MIN_MOVES, moves)


async def _play(app: seam.GameApp, bot: str, done: Callable[[], bool], latencies: list[float]) -> None:
    """Mooki games of a player against `bot`, one move at a time, until `done()`: each
    move's latency (the player's move and the bot's answer) in `latencies`."""
    seats = [game_pb2.SeatSpec(name="Player"), game_pb2.SeatSpec(name="Bot", bot=bot)]
    while not done():
        created = await app.games.create_game(api.CreateGameRequest(kind="mooki", seats=seats), ADMIN)
        token, game_id = created.seat_tokens[0], created.game_id
        await _moves(app, game_id, token, done, latencies)


async def _moves(app: seam.GameApp, game_id: str, token: str, done: Callable[[], bool], latencies: list[float]) -> None:
    """The player's moves in one game, each its first legal command, until it is over."""
    legal = list((await app.games.get_game(api.GetGameRequest(game_id=game_id), token)).legal_commands)
    while legal and not done():
        request = api.SubmitCommandRequest(game_id=game_id, command=legal[0], command_id=f"m{len(latencies)}")
        began = time.perf_counter()
        answer = await app.moves.submit(request, token)
        latencies.append(time.perf_counter() - began)
        legal = list(answer.legal_commands)


def bots_beside_markdown(windows: Sequence[BotsBesideWindow], settings: BotsBesideSettings, command: str) -> list[str]:
    """The section of docs/PERFORMANCE.md: the honest player's latency in each window."""
    quiet = windows[0]
    lines = [
        "## Bots thinking beside the moves",
        "",
        f"Reproduce with `{command}`",
        "(service/bench/bots_beside.py). One process, the memory store, no transport: an honest player's",
        "Mooki move against a `random` bot (SubmitCommand, its bot's answer included), "
        f"{settings.window:g} s a window,",
        f"while {settings.thinkers} other games' bots think {THINK_SECONDS * 1000:.0f} ms of CPU per move "
        "(a stand-in for `strong`), played",
        "without pause: chosen on the loop, then in the heavy workers (`--heavy-bots`; one worker,",
        "niceness 10). On the loop, every choice holds every other move up; in the workers, the bots",
        "get the CPU the moves leave them (on a busy machine, few moves: their games wait, no one",
        "else does).",
        "",
        "| window | honest moves | p50 ms | p99 ms | p99 vs quiet | thinking bots' choices | in workers |",
        "|---|---|---|---|---|---|---|",
    ]
    for window in windows:
        ratio = window.percentile(0.99) / quiet.percentile(0.99) if quiet.moves and window.moves else float("nan")
        lines.append(
            f"| {window.name} | {len(window.moves)} | {window.p50 * 1000:.2f} | {window.percentile(0.99) * 1000:.2f} "
            f"| ×{ratio:.1f} | {window.bot_choices} | {window.in_workers} |"
        )
    return lines
