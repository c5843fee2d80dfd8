"""The `ludotheque` command: serve, play, export, import, verify, replay, bench, api-key, bots."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Sequence

from engines.registry import ENGINES
from service.cli import bots, language, logs
from service.cli import config as configuration
from service.cli.play import play


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ludotheque", description="Ludothèque: a game-state service for tabletop games."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the server", description="Run the gRPC server until SIGTERM.")
    configuration.add_arguments(serve)

    play_parser = commands.add_parser(
        "play",
        help="play a game in the terminal",
        description=(
            "Play a game in the terminal against bots, through a running server (--server) "
            "or one started inside this process. You see exactly what your seat sees."
        ),
    )
    play_parser.add_argument("kind", nargs="?", help=f"the game: {', '.join(sorted(ENGINES))} (not with --join)")
    play_parser.add_argument(
        "--seat",
        action="append",
        dest="seats",
        metavar="SPEC",
        help=(
            "a seat, in turn order: NAME or NAME:AGE for a human at this terminal "
            "('' for none: the seat is then Player 2, in each reader's language), "
            "bot:KIND or bot:KIND:AGE for a bot (KIND: greedy, random or strong), "
            "open for a seat a player on another terminal joins (--join). "
            "Default: you against the greedy bot, and random bots in the seats the game takes besides."
        ),
    )
    play_parser.add_argument("--server", metavar="HOST:PORT", help="a running server (default: start one here)")
    language.add_argument(play_parser)
    play_parser.add_argument(
        "--join", metavar="CODE", help="take an open seat of a game on --server, by its join code (or its id)"
    )
    play_parser.add_argument("--name", metavar="NAME[:AGE]", help="your name (and age) when you --join")
    play_parser.add_argument(
        "--turn-seconds", type=int, metavar="N", help="a turn clock: past N seconds, a bot plays the turn"
    )
    logs.add_arguments(commands)
    api_key = commands.add_parser(
        "api-key",
        help="make an API key for --create-policy api-keys",
        description=(
            "Print a new random API key (hand it to the client, it is shown once) and, on a second line, "
            "its line for the --api-keys-file (the server keeps only its SHA-256)."
        ),
    )
    api_key.add_argument("name", help="who the key is for: the identity its games record (key:NAME)")
    bench_parser = commands.add_parser(
        "bench",
        help="measure the server: moves per second, latency, CPU and memory per move",
        description=(
            "Start the real server (memory, then Redis store), drive concurrent games from load processes "
            "and report moves per second, latency percentiles, server CPU per move as a ratio to an echo "
            "call, memory per game, StreamEvents fan-out, 1 vs 2 workers, and engine micro-benchmarks."
        ),
    )
    from service.bench import run as bench

    bench.add_arguments(bench_parser)
    bots.add_arguments(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        from service.cli.serve import configure_logging, serve

        config = configuration.from_arguments(args)
        configure_logging(config)
        if config.server.workers != 1:
            from service.cli.workers import supervise

            return supervise(config)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(config))
        return 0
    if args.command == "bench":
        from service.bench import run as bench

        return bench.main(args)
    if args.command == "bots":
        return bots.run(args, sys.stdout)
    if args.command == "api-key":
        from service.app.access.creators import hash_api_key, new_api_key, parse_api_keys

        key = new_api_key()
        line = f"{args.name}:{hash_api_key(key)}"
        try:
            parse_api_keys(line)
        except ValueError as error:
            raise SystemExit(f"ludotheque api-key: {error}") from None
        print(key)
        print(line)
        return 0
    if args.command == "play":
        return play(
            args.kind,
            args.seats,
            args.server,
            sys.stdin,
            sys.stdout,
            language.chosen(args.locale),
            join=args.join,
            name=args.name,
            turn_seconds=args.turn_seconds,
        )
    return logs.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
