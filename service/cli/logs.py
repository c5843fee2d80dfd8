"""`ludotheque export | import | verify | replay`: game logs for debugging.

export and import talk to a server; verify works offline on a file; replay works on a
file (offline) or on a game of a server."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from ludotheque import Client
from ludotheque.v1 import game_pb2

from engines.contract import Viewer
from engines.registry import AnyEngine
from service.app.logs.verify import Problem, payload_of, verify
from service.app.model import gamelog
from service.app.views.descriptions import Audience
from service.app.views.views import redact
from service.cli import language
from service.cli.render import renderer as renderer_of

DEFAULT_SERVER = "localhost:50051"


def add_arguments(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    def server_options(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--server", default=DEFAULT_SERVER, metavar="HOST:PORT", help=f"default {DEFAULT_SERVER}")
        parser.add_argument("--token", help="bearer token (default: the LUDOTHEQUE_ADMIN_TOKEN environment variable)")

    def viewer_options(parser: argparse.ArgumentParser, *, full: bool = False) -> None:
        who = parser.add_mutually_exclusive_group()
        who.add_argument("--as-seat", type=int, metavar="N", help="as seat N saw it")
        who.add_argument("--as-spectator", action="store_true", help="as a spectator saw it")
        if full:
            who.add_argument(
                "--full", action="store_true", help="the complete log (needs the admin token); refused otherwise"
            )

    export = commands.add_parser(
        "export",
        help="write a game's log",
        description="Write a game's log (JSON Lines): the complete log with the admin token, else as the "
        "token's seat or a spectator saw it; says on standard error which one it wrote.",
    )
    export.add_argument("game_id", help="the game to export (an id that starts with '-' goes after `--`)")
    export.add_argument("-o", "--output", metavar="FILE", help="default: standard output")
    export.add_argument("--binary", action="store_true", help="length-delimited protobuf instead of JSON Lines")
    server_options(export)
    viewer_options(export, full=True)

    load = commands.add_parser(
        "import", help="load a log as a new game", description="Load a complete log as a new game (admin)."
    )
    load.add_argument("file")
    load.add_argument("--truncate-at", type=int, metavar="N", help="keep the events up to version N (a fork)")
    server_options(load)

    check = commands.add_parser(
        "verify",
        help="check a log against the rules, offline",
        description="Replay a complete log through the rules; exit 0 only when every event follows.",
    )
    check.add_argument("file")
    check.add_argument(
        "--on-server", action="store_true", help="have --server verify it (ReplayLog: nothing is stored)"
    )
    server_options(check)

    replay = commands.add_parser(
        "replay",
        help="look at a game at any version",
        description="Show a game as a viewer saw it at a version, what changed between two versions, "
        "or step through it.",
    )
    replay.add_argument("source", help="a log file, or a game id on --server")
    replay.add_argument("--at", type=int, metavar="N", help="the version to show (default: the last)")
    replay.add_argument("--diff", metavar="A..B", help="what changed between versions A and B")
    replay.add_argument("--json", action="store_true", help="JSON instead of text")
    replay.add_argument("-i", "--interactive", action="store_true", help="step forward and back through the game")
    replay.add_argument(
        "--on-server",
        action="store_true",
        help="a log file replayed by --server (ReplayLog: nothing is stored) instead of in this process",
    )
    language.add_argument(replay)
    server_options(replay)
    viewer_options(replay)


def run(args: argparse.Namespace, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    try:
        if args.command == "export":
            return export(args, stdout)
        if args.command == "import":
            return import_(args, stdout)
        if args.command == "verify":
            if args.on_server:
                return verify_on_server(args, stdout)
            return verify_file(Path(args.file), stdout)
        return replay(args, stdin, stdout)
    except gamelog.LogFormatError as error:
        stdout.write(f"Cannot read the log: {error}\n")
        return 1
    except grpc.RpcError as error:
        stdout.write(f"The server refused: {error.code().name}: {error.details()}\n")
        return 1


def _client(args: argparse.Namespace) -> Client:
    token = args.token if args.token is not None else os.environ.get("LUDOTHEQUE_ADMIN_TOKEN", "")
    return Client(args.server, token or None, timeout=60, locale=language.chosen(getattr(args, "locale", None)) or None)


def _viewer(args: argparse.Namespace) -> Viewer:
    if getattr(args, "as_seat", None) is not None:
        return Viewer.player(args.as_seat)
    if getattr(args, "as_spectator", False):
        return Viewer.spectator()
    return Viewer.admin()


def fetch_log(client: Client, game_id: str, viewer: Viewer | None = None) -> game_pb2.GameLog:
    if viewer is None or viewer.is_admin:
        return client.export_game(game_id)
    return client.export_game(game_id, as_seat=viewer.seat, as_spectator=viewer.seat is None)


def export(args: argparse.Namespace, stdout: TextIO) -> int:
    with _client(args) as client:
        if args.full and not client.token:
            raise SystemExit("ludotheque export --full needs the admin token (--token or LUDOTHEQUE_ADMIN_TOKEN)")
        viewer = _viewer(args)
        log = fetch_log(client, args.game_id, None if viewer.is_admin else viewer)
    which = log_kind(log.header.viewer)
    if args.full and log.header.viewer.role != game_pb2.VIEWER_ROLE_ADMIN:
        raise SystemExit(f"ludotheque export --full: the server gave {which}: --full needs the admin token")
    sys.stderr.write(f"wrote {which} of game {log.header.game_id}: {len(log.events)} events\n")
    data = gamelog.to_binary(log) if args.binary else gamelog.to_jsonl(log).encode()
    if args.output:
        Path(args.output).write_bytes(data)
    elif args.binary:
        sys.stdout.buffer.write(data)
    else:
        stdout.write(data.decode())
    return 0


def log_kind(viewer: game_pb2.Viewer) -> str:
    """Which log a header's viewer makes it: the complete one, a seat's or a spectator's."""
    if viewer.role == game_pb2.VIEWER_ROLE_ADMIN:
        return "the complete log (admin)"
    if viewer.role == game_pb2.VIEWER_ROLE_SEAT:
        return f"seat {viewer.seat}'s log (what that seat saw)"
    return "a spectator's log (what anyone watching saw)"


def import_(args: argparse.Namespace, stdout: TextIO) -> int:
    log = gamelog.parse(Path(args.file).read_bytes())
    with _client(args) as client:
        response = client.import_game(log, args.truncate_at)
    stdout.write(f"game_id: {response.game_id}\n")
    for seat, token in zip(response.game.seats, response.seat_tokens, strict=True):
        stdout.write(f"seat {seat.index} ({seat.name}): {token}\n")
    stdout.write(f"version: {response.game.version}\n")
    return 0


def verify_file(path: Path, stdout: TextIO) -> int:
    log = gamelog.parse(path.read_bytes())
    checked = verify(log)
    if isinstance(checked, Problem):
        stdout.write(f"INVALID at {checked.where}: {checked.reason}\n")
        if checked.state_before is not None and checked.engine is not None:
            view = checked.engine.view(checked.state_before, Viewer.admin())
            stdout.write("\nThe game just before it (complete view):\n")
            stdout.write(
                renderer_of(checked.engine.kind).render_view(view, checked.seats or log.header.seats, None) + "\n"
            )
        return 1
    status = checked.engine.status(checked.states[-1])
    how = "finished" if status.finished else f"waiting for seat {', '.join(map(str, status.to_act))}"
    stdout.write(f"valid: {len(log.events)} events of a {log.header.kind} game ({log.header.rules_version}), {how}\n")
    return 0


def verify_on_server(args: argparse.Namespace, stdout: TextIO) -> int:
    """The same check, by the server (ReplayLog), which stores nothing."""
    log = gamelog.parse(Path(args.file).read_bytes())
    with _client(args) as client:
        replayed = client.replay_log(log, from_version=len(log.events), page_size=1)
    if not replayed.valid:
        stdout.write(f"INVALID at {replayed.problem.where}: {replayed.problem.reason}\n")
        return 1
    (last,) = replayed.steps
    how = (
        "finished"
        if last.status == game_pb2.GAME_STATUS_FINISHED
        else "waiting for seat " + ", ".join(map(str, last.to_act))
    )
    stdout.write(f"valid: {len(log.events)} events of a {log.header.kind} game ({log.header.rules_version}), {how}\n")
    return 0


# --- replay ------------------------------------------------------------------------


@dataclass
class Timeline:
    """A game's views at every version, for one viewer."""

    log: game_pb2.GameLog
    engine: AnyEngine | None  # None: only the server can rebuild the views
    states: list[Any]
    client: Client | None = None
    game_id: str = ""
    on_server: bool = False  # a log file the server replays (ReplayLog)
    table_seats: Sequence[game_pb2.Seat] = ()  # as the log's table events left them (players who joined)

    @property
    def seats(self) -> Sequence[game_pb2.Seat]:
        return self.table_seats or self.log.header.seats

    @property
    def last(self) -> int:
        return len(self.log.events)

    @property
    def kind(self) -> str:
        return self.log.header.kind

    def view(self, version: int, viewer: Viewer) -> Message:
        if self.engine is not None:
            view: Message = self.engine.view(self.states[version], viewer)
            return view
        assert self.client is not None
        if self.on_server:
            as_seat = viewer.seat if viewer.seat is not None else None
            spectator = not viewer.is_admin and viewer.seat is None
            page = self.client.replay_log(
                self.log, from_version=version, page_size=1, as_seat=as_seat, as_spectator=spectator
            )
            (step,) = page.steps
            return payload_of(step.view, self.kind) or step.view
        replayed = self.client.replay(self.game_id, at_version=version)
        return payload_of(replayed.view, self.kind) or replayed.view

    def events(self, after: int, upto: int) -> list[game_pb2.Event]:
        return [e for e in self.log.events if after < e.version <= upto]


def _timeline(args: argparse.Namespace) -> Timeline:
    """From a file: rebuilt here (a complete log is needed). From a server: rebuilt
    here from the complete log with the admin token; otherwise the server shows the
    caller's own views (ReplayGame)."""
    if Path(args.source).exists():
        log = gamelog.parse(Path(args.source).read_bytes())
        if args.on_server:
            client = _client(args)
            checked_there = client.replay_log(log, page_size=1)
            if not checked_there.valid:
                problem = checked_there.problem
                raise SystemExit(f"{args.source}: cannot replay it: {problem.where}: {problem.reason}")
            return Timeline(log, None, [], client, on_server=True)
    else:
        client = _client(args)
        log = fetch_log(client, args.source)
        if log.header.viewer.role != game_pb2.VIEWER_ROLE_ADMIN:
            if args.as_seat is not None or args.as_spectator:
                raise SystemExit("--as-seat and --as-spectator need the admin token")
            return Timeline(log, None, [], client, args.source)
    checked = verify(log)
    if isinstance(checked, Problem):
        raise SystemExit(f"{args.source}: cannot replay it: {checked.where}: {checked.reason}")
    return Timeline(log, checked.engine, checked.states, table_seats=checked.seats)


def _render(timeline: Timeline, version: int, viewer: Viewer) -> str:
    view = timeline.view(version, viewer)
    renderer = renderer_of(timeline.kind)
    text: str = renderer.render_view(view, timeline.seats, viewer.seat)
    return text


def _describe(timeline: Timeline, events: Sequence[game_pb2.Event], viewer: Viewer, locale: str) -> list[str]:
    """The events as `viewer` saw them, in the words every client gets: a complete log
    is redacted and described here as the server does; a log from the server (a seat's
    or a spectator's) comes described already."""
    lines = []
    audience = Audience.of(timeline.seats, locale)
    for event in events:
        told: game_pb2.Event | None = event
        if timeline.engine is not None:
            told = redact(timeline.engine, event, viewer, audience)
        if told is not None and told.description.text:
            lines.append(f"  v{event.version}: {told.description.text}")
    return lines


def _json(message: Message) -> Any:
    return json_format.MessageToDict(message)


def replay(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    timeline = _timeline(args)
    locale = language.chosen(args.locale)
    viewer = _viewer(args)
    if timeline.engine is None and not timeline.on_server:  # the server shows the caller's own views
        header_viewer = timeline.log.header.viewer
        viewer = Viewer.player(header_viewer.seat) if header_viewer.HasField("seat") else Viewer.spectator()
    if args.interactive:
        return _interactive(timeline, viewer, args.at if args.at is not None else 0, stdin, stdout, locale)
    if args.diff:
        first, _, second = args.diff.partition("..")
        if not (first.isdigit() and second.isdigit()):
            stdout.write("--diff takes two versions: A..B\n")
            return 2
        a, b = int(first), int(second)
        if not 0 <= a <= b <= timeline.last:
            stdout.write(f"versions go from 0 to {timeline.last}\n")
            return 2
        events = timeline.events(a, b)
        if args.json:
            document = {
                "from": a,
                "to": b,
                "events": [_json(e) for e in events],
                "before": _json(timeline.view(a, viewer)),
                "after": _json(timeline.view(b, viewer)),
            }
            stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
            return 0
        stdout.write(f"From version {a} to {b}:\n")
        stdout.write("\n".join(_describe(timeline, events, viewer, locale)) + "\n\n")
        before, after = _render(timeline, a, viewer), _render(timeline, b, viewer)
        diff = difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"version {a}", f"version {b}", lineterm=""
        )
        stdout.write("\n".join(diff) + "\n")
        return 0
    version = timeline.last if args.at is None else args.at
    if not 0 <= version <= timeline.last:
        stdout.write(f"versions go from 0 to {timeline.last}\n")
        return 2
    if args.json:
        stdout.write(json.dumps(_json(timeline.view(version, viewer)), indent=2, ensure_ascii=False) + "\n")
    else:
        stdout.write(f"Version {version} of {timeline.last}\n{_render(timeline, version, viewer)}\n")
    return 0


def _interactive(timeline: Timeline, viewer: Viewer, version: int, stdin: TextIO, stdout: TextIO, locale: str) -> int:
    version = max(0, min(version, timeline.last))
    while True:
        stdout.write(f"\n=== version {version} of {timeline.last} ===\n")
        stdout.write("\n".join(_describe(timeline, timeline.events(version - 1, version), viewer, locale)) + "\n")
        stdout.write(_render(timeline, version, viewer) + "\n")
        stdout.write("[n]ext, [p]revious, [g]o N, [q]uit: ")
        stdout.flush()
        answer = stdin.readline()
        if not answer:
            return 0
        word, _, rest = answer.strip().partition(" ")
        if word in ("q", "quit"):
            return 0
        if word in ("", "n", "next"):
            version = min(version + 1, timeline.last)
        elif word in ("p", "prev", "previous"):
            version = max(version - 1, 0)
        elif word in ("g", "go") and rest.strip().isdigit():
            version = max(0, min(int(rest), timeline.last))
        else:
            stdout.write("n, p, g N or q\n")
