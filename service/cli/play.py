"""`ludotheque play`: a game in the terminal, through the Python client.

Each human seat at this terminal acts with its own seat token and is shown only what
that seat may see; when several humans share the terminal, each is asked to look
while the others look away. Seats may be left open (`--seat open`) for players on
other terminals, who join with `ludotheque play --join CODE --server HOST:PORT`."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, TextIO

import grpc
from ludotheque import Client, localized_message
from ludotheque.v1 import game_pb2

from engines.phrases import NumberArg, Phrase
from engines.registry import ENGINES, GAMES
from service.app.words.catalogs import catalogs
from service.cli.config import defaults
from service.cli.render import renderer as renderer_of

# The player at the terminal, named in its language ("You", « Toi »).
YOU = "you"


def default_seats(kind: str) -> list[str]:
    """You against the greedy bot, with random bots in the seats the game takes or
    its registration asks for besides (engines/<kind>/__init__.py's play_seats)."""
    game = GAMES.get(kind)
    seats = max(game.play_seats or game.engine.min_seats, 2) if game else 2
    return [YOU, "bot:greedy", *["bot:random"] * (seats - 2)]


def parse_seats(specs: Sequence[str], locale: str = "") -> list[dict[str, Any]]:
    """The seats, bots of the same kind numbered so that they can be told apart; the
    names the terminal gives (bots, the player at it) in `locale`."""
    seats = [parse_seat(spec, locale) for spec in specs]
    names = [seat["name"] for seat in seats]
    for index, seat in enumerate(seats):
        if seat.get("bot") and names.count(seat["name"]) > 1:
            seat["name"] = f"{seat['name']} {names[: index + 1].count(seat['name'])}"
    return seats


def parse_seat(spec: str, locale: str = "") -> dict[str, Any]:
    """'Cléo', 'Cléo:6', 'bot:greedy', 'bot:greedy:7', 'open', 'you' (the player at the
    terminal) or '' (no name: "Player 2" to every reader) as a SeatSpec's fields; a bot's
    name, and yours, in `locale`."""
    if spec == "open":
        return {"open": True}
    words = catalogs().words(locale)
    if spec == YOU:
        return {"name": words.text(Phrase("seat.you"))}
    parts = spec.split(":")
    if parts[0] == "bot" and len(parts) in (2, 3):
        seat: dict[str, Any] = {"name": words.text(Phrase(f"bot.name.{parts[1]}")), "bot": parts[1]}
        if len(parts) == 3:
            seat["age"] = int(parts[2])
        return seat
    if len(parts) == 2 and parts[1].isdigit():
        return {"name": parts[0], "age": int(parts[1])}
    return {"name": spec}


@contextmanager
def local_server() -> Iterator[str]:
    """A server on 127.0.0.1 inside this process, in a thread of its own."""
    from service.cli.serve import start

    config = defaults()
    config = replace(
        config,
        server=replace(config.server, host="127.0.0.1"),
        grpc=replace(config.grpc, port=0),
        http=replace(config.http, port=0),
    )
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    running = asyncio.run_coroutine_threadsafe(start(config), loop).result()
    try:
        yield f"127.0.0.1:{running.grpc_port}"
    finally:
        asyncio.run_coroutine_threadsafe(running.stop(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()


def play(
    kind: str | None,
    seat_specs: Sequence[str] | None,
    server: str | None,
    stdin: TextIO,
    stdout: TextIO,
    locale: str = "",
    *,
    join: str | None = None,
    name: str | None = None,
    turn_seconds: int | None = None,
) -> int:
    """Creates a game of `kind` and plays its human seats here; or, with `join`, takes an
    open seat of a game on `server` by its join code and plays it. Moves and events are
    told in `locale` (the descriptions every client gets), the board drawn by
    service/cli/render/ (the game's own text renderer, or the generic one)."""
    if join is not None:
        if server is None:
            stdout.write("--join needs --server HOST:PORT: the server where the game is.\n")
            return 2
        return _join(join, parse_seat(name or YOU, locale), server, stdin, stdout, locale)
    if kind is None or kind not in GAMES:
        stdout.write(f"Unknown game {kind!r}: choose one of {', '.join(sorted(ENGINES))}.\n")
        return 2
    seats = parse_seats(seat_specs or default_seats(kind), locale)
    clock = {"turn_seconds": turn_seconds} if turn_seconds else None
    if server is not None:
        return _play(kind, seats, clock, server, stdin, stdout, locale)
    with local_server() as target:
        return _play(kind, seats, clock, target, stdin, stdout, locale)


def _play(
    kind: str,
    seats: list[dict[str, Any]],
    clock: dict[str, int] | None,
    target: str,
    stdin: TextIO,
    stdout: TextIO,
    locale: str,
) -> int:
    with Client(target, locale=locale or None) as lobby:
        try:
            created = lobby.create_game(kind, seats, clock=clock)
        except grpc.RpcError as error:
            stdout.write(f"Cannot create the game: {error.details()}\n")
            return 1
        humans = {i: lobby.with_token(token) for i, token in enumerate(created.seat_tokens) if token}
        humans = {i: client for i, client in humans.items() if not seats[i].get("bot")}
        game = created.game
        told = ", ".join("an open seat" if s.open else called(s, locale) for s in game.seats)
        stdout.write(f"Game {game.game_id}: {told}\n")
        if game.join_code:
            stdout.write(
                f"Waiting for players: they join with `ludotheque play --join {game.join_code} --server {target}`\n"
            )
        return _loop(lobby, game.game_id, humans, stdin, stdout, locale)


def _join(code: str, player: dict[str, Any], target: str, stdin: TextIO, stdout: TextIO, locale: str) -> int:
    with Client(target, locale=locale or None) as lobby:
        try:
            joined = lobby.join_game(code, player.get("name", "You"), age=player.get("age"))
        except grpc.RpcError as error:
            stdout.write(f"Cannot join the game: {error.details()}\n")
            return 1
        game = joined.game
        stdout.write(f"You sit at seat {joined.seat + 1} of game {game.game_id}.\n")
        humans = {joined.seat: lobby.with_token(joined.seat_token)}
        return _loop(lobby, game.game_id, humans, stdin, stdout, locale)


def called(seat: game_pb2.Seat, locale: str) -> str:
    """A seat's name; one given none is "Player 2" in `locale`, as the service's words call it."""
    unnamed = Phrase("seat.unnamed", (("number", NumberArg(seat.index + 1)),))
    return seat.name or catalogs().words(locale).text(unnamed)


def named(seats: Sequence[game_pb2.Seat], locale: str) -> list[game_pb2.Seat]:
    """The seats, each with its name (see `called`), for a board drawn in English words."""
    copies = []
    for seat in seats:
        copy = game_pb2.Seat()
        copy.CopyFrom(seat)
        copy.name = called(seat, locale)
        copies.append(copy)
    return copies


def _loop(
    lobby: Client, game_id: str, humans: dict[int, Client], stdin: TextIO, stdout: TextIO, locale: str = ""
) -> int:
    """Plays the human seats at this terminal until the game is over (or they quit)."""
    renderer = renderer_of(lobby.get_game(game_id).kind)
    shown = 0
    shared_terminal = len(humans) > 1
    # Events are told as the one human here saw them; with several humans sharing
    # the terminal, as a spectator saw them (nobody's secrets on screen).
    narrator = lobby if shared_terminal or not humans else next(iter(humans.values()))
    while True:
        public = lobby.get_game(game_id)
        shown = _print_events(narrator, public, shown, stdout)
        if public.status == game_pb2.GAME_STATUS_FINISHED:
            stdout.write("\n" + renderer.render_view(_payload(public.view), named(public.seats, locale), None) + "\n")
            # How it ended, in the service's words in the player's language.
            stdout.write(f"\nGame over. {public.outcome.description.text or public.outcome.summary}\n")
            return 0
        acting = [seat for seat in public.to_act if seat in humans]
        if not acting:
            # Someone elsewhere must move: wait for the next event.
            for _ in lobby.stream(game_id, from_version=public.version + 1):
                break
            continue
        seat = acting[0]
        if shared_terminal:
            stdout.write(f"\n--- {called(public.seats[seat], locale)}'s turn (others, look away!) ---\n")
        if not _take_turn(humans[seat], renderer, game_id, seat, stdin, stdout, locale):
            stdout.write("Bye.\n")
            return 0


def _print_events(narrator: Client, game: game_pb2.Game, shown: int, stdout: TextIO) -> int:
    """Prints the events after version `shown`, as the narrator's token sees them
    (their descriptions, which say no more than the narrator may know)."""
    if game.version <= shown:
        return shown
    for event in narrator.history(game.game_id, from_version=shown + 1):
        if event.description.text:
            stdout.write(f"  {event.description.text}\n")
    return game.version


def _take_turn(
    player: Client, renderer: Any, game_id: str, seat: int, stdin: TextIO, stdout: TextIO, locale: str
) -> bool:
    """Shows the seat its view and asks for a move; False when the player quits."""
    game = player.get_game(game_id)
    view = _payload(game.view)
    stdout.write("\n" + renderer.render_view(view, named(game.seats, locale), seat) + "\n\n")
    choices = list(game.legal_commands)
    clock = game.seats[seat].clock
    if clock.HasField("remaining"):  # a turn clock: past it, a bot plays the turn
        stdout.write(f"  ({clock.remaining.seconds} s left to move, then a bot plays for you)\n")
    for number, command in enumerate(choices, start=1):
        stdout.write(f"  {number}. {command.description.text}\n")
    while True:
        stdout.write(f"Your move, {called(game.seats[seat], locale)} (1-{len(choices)}, q to quit): ")
        stdout.flush()
        answer = stdin.readline()
        if not answer or answer.strip().lower() in ("q", "quit"):
            return False
        if answer.strip().isdigit() and 1 <= int(answer) <= len(choices):
            break
        stdout.write("Please type one of the numbers above.\n")
    try:
        player.submit(game_id, choices[int(answer) - 1], expected_version=game.version)
    except grpc.RpcError as error:
        stdout.write(f"That move was refused: {localized_message(error) or error.details()}\n")
    return True


def _payload(envelope: Any) -> Any:
    which = envelope.WhichOneof("game")
    return getattr(envelope, which) if which else envelope
