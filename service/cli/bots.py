"""`ludotheque bots`: each game's bots, and how strong they are against each other.

`--versus` plays games on the engines alone (no server): one bot in one seat against
another in the others, the seat changing every game, or (`--team`, for a game its
players win together) every seat one bot, then every seat the other, on the same
deals. It prints the wins and the CPU time of the first bot's moves (p50, p99), the
figures docs/GAMES.md gives for the strong bots."""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from google.protobuf import json_format
from google.protobuf.message import Message

from engines.contract import Bot, SeatInfo
from engines.registry import ENGINES, AnyEngine


def add_arguments(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "bots",
        help="list the games' bots, or play them against each other",
        description=(
            "List each game's bots; with --versus, play BOT against AGAINST on the engines alone "
            "(seats alternated) and print the wins and BOT's CPU time per move."
        ),
    )
    parser.add_argument("--versus", action="store_true", help="play games and count the wins")
    parser.add_argument("--game", default="mooki", help=f"the game: {', '.join(sorted(ENGINES))} (default mooki)")
    parser.add_argument("--games", type=int, default=400, metavar="N", help="how many games (default 400)")
    parser.add_argument("--bot", default="strong", help="the bot measured (default strong)")
    parser.add_argument("--against", default="greedy", help="its opponent, or the other team (default greedy)")
    parser.add_argument("--seats", type=int, default=2, metavar="N", help="players per game (default 2)")
    parser.add_argument(
        "--team", action="store_true", help="every seat BOT, then every seat AGAINST, same deals (a game won together)"
    )
    parser.add_argument(
        "--options", default="{}", metavar="JSON", help='the game\'s Options, e.g. \'{"board": "BOARD_HARD"}\''
    )
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed (default 0)")


@dataclass
class Tally:
    """Games won by a side, and the CPU seconds of each move its measured bot made."""

    games: int = 0
    won: int = 0
    cpu: list[float] = field(default_factory=list)


def play_game(
    engine: AnyEngine, options: Message, players: Sequence[Bot[Any, Any]], seed: int, cpu: list[float], timed: set[int]
) -> tuple[int, ...]:
    """One game of `players` (one bot per seat) dealt from `seed`: its winners. The
    CPU time of each move of a seat in `timed` goes to `cpu`."""
    rng = random.Random(seed)
    seats = [SeatInfo() for _ in players]
    state = engine.initial_state()
    for event in engine.setup(engine.resolve_options(options, seats), seats, rng):
        state = engine.evolve(state, event)
    while not (status := engine.status(state)).finished:
        seat = status.to_act[0]
        started = time.process_time()
        command = players[seat](state, seat, rng)
        if seat in timed:
            cpu.append(time.process_time() - started)
        for event in engine.decide(state, seat, command, rng):
            state = engine.evolve(state, event)
    return status.winners


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def versus(engine: AnyEngine, options: Message, args: argparse.Namespace) -> tuple[Tally, Tally]:
    """BOT's and AGAINST's tallies over args.games games."""
    bot, against = engine.bots[args.bot], engine.bots[args.against]
    mine, theirs = Tally(), Tally()
    for game in range(args.games):
        seed = args.seed + game
        if args.team:
            for tally, player in ((mine, bot), (theirs, against)):
                timed = set(range(args.seats)) if tally is mine else set()
                tally.won += bool(play_game(engine, options, [player] * args.seats, seed, tally.cpu, timed))
                tally.games += 1
            continue
        seat = game % args.seats
        players = [bot if each == seat else against for each in range(args.seats)]
        winners = play_game(engine, options, players, seed, mine.cpu, {seat})
        mine.won += seat in winners
        theirs.won += any(each in winners for each in range(args.seats) if each != seat)
        mine.games = theirs.games = game + 1
    return mine, theirs


def run(args: argparse.Namespace, out: TextIO) -> int:
    if not args.versus:
        for kind in sorted(ENGINES):
            print(f"{kind}: {', '.join(sorted(ENGINES[kind].bots))}", file=out)
        return 0
    engine = ENGINES.get(args.game)
    if engine is None:
        raise SystemExit(f"ludotheque bots: no game {args.game!r} (one of {', '.join(sorted(ENGINES))})")
    for name in (args.bot, args.against):
        if name not in engine.bots:
            raise SystemExit(f"ludotheque bots: {args.game} has no bot {name!r} ({', '.join(sorted(engine.bots))})")
    if args.games < 1 or not engine.min_seats <= args.seats <= engine.max_seats:
        raise SystemExit(f"ludotheque bots: --games is 1 or more, --seats {engine.min_seats} to {engine.max_seats}")
    try:
        options = json_format.Parse(args.options, engine.options_type())
    except json_format.ParseError as error:
        raise SystemExit(f"ludotheque bots: --options: {error}") from None
    mine, theirs = versus(engine, options, args)
    where = f"{args.game}, {args.seats} seats"
    if args.team:
        ratio = f"{mine.won / theirs.won:.2f}x" if theirs.won else "the other team never won"
        print(
            f"{where}: a team of {args.bot} won {mine.won} of {mine.games} games, "
            f"a team of {args.against} {theirs.won} of {theirs.games} ({ratio})",
            file=out,
        )
    else:
        print(
            f"{where}: {args.bot} won {mine.won} of {mine.games} games ({mine.won / mine.games:.1%}) "
            f"against {args.against}, seats alternated",
            file=out,
        )
    p50, p99 = (percentile(mine.cpu, share) * 1000 for share in (0.5, 0.99))
    print(f"{args.bot}'s CPU per move: p50 {p50:.1f} ms, p99 {p99:.1f} ms over {len(mine.cpu)} moves", file=out)
    return 0
