"""The attack bench (`ludotheque bench --attacks`): an honest player's calls, quiet and
beside each class of attack of issues 27 and 42 (tests/hostile/ holds their tests), on one
server on the Redis store as docs/OPERATIONS.md sets it up (deploy/redis.conf), in one run.

For each class, two windows back to back: the honest player alone (honest.py: Pirates
against a greedy bot over gRPC, `GetGame` then a move, from 127.0.0.1), then the same
beside the attack (hostile.py: from 127.0.0.2 to 127.0.0.9). Per class: the player's p50
and p99 in both windows, their ratio, its failed calls; the attacker's requests and how
each ended; the server's CPU (its process and its heavy workers, /proc) per attacker
request, beyond what the honest player's calls cost at their quiet rate; the bench's own
CPU meanwhile (the attackers share the machine with the server). The targets (issue 42): a p99
at most twice its quiet one, and no failed call.

Two profiles: `QUICK` (half-second windows, a few streams: CI's, to check every figure is
produced, never what a window reached) and the long one (`--duration` seconds a window,
10 by default, and the issue's volumes)."""

from __future__ import annotations

import gzip
import http.client
import json
import math
import random
import secrets
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field

from ludotheque import Client
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.bench import floods, hostile
from service.bench.honest import MIN_CALLS, Honest, HonestPlayer
from service.bench.hostile import ADDRESSES, Attacker
from service.bench.seam import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH
from service.bench.target import Redis, Server, tree_cpu_seconds

ADMIN = "bench-attack-admin-token-0123456789abcdef-0123"
REPLAY_LOG_BYTES = 1_000_000  # a ReplayLog request at most this long: the "~1 MB log"
BOMB_BYTES = 48 << 20  # what the gzip bomb inflates to (about 48 KB sent)
BIG_BODY = 1 << 20  # the JSON bodies sent to CreateGame
TARGET_RATIO = 2.0  # the honest player's p99 under attack, at most this times its quiet p99


@dataclass(frozen=True, slots=True)
class AttackProfile:
    window: float = 10.0  # seconds of each window (quiet, then attacked)
    sse_streams: int = 200  # server-sent event streams never read, from 8 addresses
    streams: int = 20  # streams never read on each other transport
    slow_connections: int = 2000
    slow_bodies: int = 16
    settle: float = 20.0  # seconds at most to wait for the server to be idle between classes
    least_calls: int = MIN_CALLS  # the honest player's calls a window at least, however slow
    quick: bool = False


QUICK = AttackProfile(
    window=0.5, sse_streams=16, streams=4, slow_connections=48, slow_bodies=4, settle=1.0, least_calls=2, quick=True
)


@dataclass(slots=True)
class AttackFigures:
    attack: str
    unit: str  # what one attacker request is
    quiet: Honest
    attacked: Honest
    quiet_seconds: float
    attacked_seconds: float  # the attack's whole time: the window, then its requests in flight ending
    quiet_cpu: float  # server CPU seconds in the quiet window
    attacked_cpu: float
    attacker_cpu: float = 0.0  # the bench's own CPU seconds meanwhile (the attackers': it shares the machine)
    requests: int = 0
    sent: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """The honest player's p99 under attack over its quiet p99."""
        quiet = self.quiet.p99
        return self.attacked.p99 / quiet if quiet > 0 else math.nan

    @property
    def attack_cpu(self) -> float:
        """Server CPU seconds the attack cost: the attacked window's, less the honest
        player's calls in it at their quiet cost each."""
        quiet_calls = len(self.quiet.latencies)
        honest = self.quiet_cpu / quiet_calls * len(self.attacked.latencies) if quiet_calls else 0.0
        return max(0.0, self.attacked_cpu - honest)

    @property
    def cpu_per_request(self) -> float:
        return self.attack_cpu / self.requests if self.requests else math.nan

    @property
    def met(self) -> bool:
        return not self.attacked.failures and self.ratio <= TARGET_RATIO


@dataclass(slots=True)
class Scene:
    """What the attacks need, made before any window: the server, a long game of three
    random bots (finished) and the same imported without its last moves (unfinished: its
    export is made anew each time), a ReplayLog request of its log, a game of the
    attacker's own (Mooki, two seats: tokens of both), a gzip bomb."""

    server: Server | None  # None: for the classes' names alone
    target: hostile.Server
    finished: str = ""
    unfinished: str = ""
    events: int = 0  # the unfinished game's
    replay_request: bytes = b""
    own_game: str = ""
    own_tokens: list[str] = field(default_factory=list)
    bomb: bytes = b""


Run = Callable[[Attacker, threading.Event], None]


@dataclass(frozen=True, slots=True)
class AttackClass:
    name: str
    unit: str
    run: Run


def attack_figures(profile: AttackProfile, progress: Callable[[str], None]) -> list[AttackFigures]:
    """Each attack class beside its own quiet window, on one server."""
    redis = Redis.start()
    server = Server.start(redis.url, env={"LUDOTHEQUE_ADMIN_TOKEN": ADMIN})
    honest = HonestPlayer()
    try:
        progress("setting the scene: a long game, its log, the attacker's own game")
        scene = _scene(server)
        figures = []
        for attack in classes(scene, profile):
            progress(f"under attack: {attack.name}")
            figures.append(_measure(scene, honest, attack, profile))
        return figures
    finally:
        try:
            honest.close()
        finally:
            server.stop()
            redis.stop()


def _measure(scene: Scene, honest: HonestPlayer, attack: AttackClass, profile: AttackProfile) -> AttackFigures:
    assert scene.server is not None
    pid = scene.server.process.pid
    _settle(pid, profile.settle)
    cpu, began = tree_cpu_seconds(pid), time.perf_counter()
    quiet = honest.play(scene.server.target, profile.window, profile.least_calls)
    quiet_cpu, quiet_seconds = tree_cpu_seconds(pid) - cpu, time.perf_counter() - began
    attacker, stop = Attacker(), threading.Event()
    thread = threading.Thread(target=attack.run, args=(attacker, stop), daemon=True)
    cpu, began, own = tree_cpu_seconds(pid), time.perf_counter(), time.process_time()
    thread.start()
    try:
        attacked = honest.play(scene.server.target, profile.window, profile.least_calls)
    finally:
        stop.set()
        thread.join(120)
        attacker.close()
    figures = AttackFigures(
        attack.name,
        attack.unit,
        quiet,
        attacked,
        quiet_seconds,
        time.perf_counter() - began,
        quiet_cpu,
        tree_cpu_seconds(pid) - cpu,
        time.process_time() - own,
    )
    figures.requests, figures.sent, figures.outcomes = attacker.requests, attacker.sent, dict(attacker.outcomes)
    return figures


def _settle(pid: int, most: float) -> None:
    """Waits (up to `most` seconds) until the server spends under a fifth of a core: the
    last attack's work over, the next quiet window quiet."""
    deadline = time.perf_counter() + most
    before = tree_cpu_seconds(pid)
    while time.perf_counter() < deadline:
        time.sleep(0.25)
        now = tree_cpu_seconds(pid)
        if now - before < 0.05:
            return
        before = now


def _scene(server: Server) -> Scene:
    scene = Scene(server, hostile.Server(server.http_port, server.grpc_port))
    seats = [{"name": f"Bot {i}", "bot": "random"} for i in range(3)]
    scene.finished = str(_post(server, "/v1/games", {"kind": "pirates", "seats": seats}, ADMIN)["gameId"])
    with Client(server.target, token=ADMIN, timeout=120) as admin:
        log = admin.stub.ExportGame(api.ExportGameRequest(game_id=scene.finished), metadata=_admin(), timeout=120).log
        log = _fitted(log)
        scene.replay_request = api.ReplayLogRequest(log=log, page_size=1).SerializeToString()
        scene.events = max(v for v in _move_starts(log) if v < len(log.events))  # its last move left out
        unplayed = api.ImportGameRequest(log=log, truncate_at=scene.events)
        for seat in unplayed.log.header.seats:
            seat.bot = ""  # people now: bots would play the last move at once, and finish it
        imported = admin.stub.ImportGame(unplayed, metadata=_admin(), timeout=120)
        scene.unfinished = imported.game_id
    seats = [{"name": "Mallory"}, {"name": "Trudy"}]
    own = _post(server, "/v1/games", {"kind": "mooki", "seats": seats}, "", ADDRESSES[0])
    tokens = own["seatTokens"]
    assert isinstance(tokens, list)
    scene.own_game, scene.own_tokens = str(own["gameId"]), [str(token) for token in tokens]
    scene.bomb = gzip.compress(bytes(BOMB_BYTES), 9)
    return scene


def _move_starts(log: game_pb2.GameLog) -> list[int]:
    """The versions a log may be cut at (ImportGame's `truncate_at`; a ReplayLog's log must
    end there too): before a command's first event, unless a table event before it says a
    stand-in played it."""
    events = log.events
    return [
        e.version - 1
        for e in events
        if e.version > 1 and e.HasField("command") and not events[e.version - 2].HasField("table")
    ]


def _fitted(log: game_pb2.GameLog) -> game_pb2.GameLog:
    """`log`, cut between two moves until a ReplayLog request of it fits REPLAY_LOG_BYTES
    (the issue's "~1 MB log")."""
    while api.ReplayLogRequest(log=log, page_size=1).ByteSize() > REPLAY_LOG_BYTES:
        cut = max(v for v in _move_starts(log) if v <= len(log.events) * 9 // 10)
        del log.events[cut:]
    return log


def _admin() -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {ADMIN}"),)


def _post(server: Server, path: str, body: object, token: str = "", address: str = "") -> dict[str, object]:
    """A JSON POST's answer (from `address` when given)."""
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    if not address:
        request = urllib.request.Request(f"{server.http}{path}", json.dumps(body).encode(), headers, method="POST")
        with urllib.request.urlopen(request, timeout=120) as response:
            answer: dict[str, object] = json.loads(response.read())
            return answer
    connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=120, source_address=(address, 0))
    try:
        connection.request("POST", path, json.dumps(body).encode(), headers)
        response = connection.getresponse()
        answer = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"POST {path}: {response.status} {answer}")
        return answer
    finally:
        connection.close()


def _get(path: str, token: str = "") -> hostile.Request:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return lambda number: ("GET", path, b"", headers)


def classes(scene: Scene, profile: AttackProfile) -> list[AttackClass]:
    """Every class the bench measures, in the order of its report."""
    target, game, events = scene.target, scene.unfinished, scene.events

    def http(clients: int, request: hostile.Request) -> Run:
        return lambda attacker, stop: hostile.requests(target, clients, request, attacker, stop)

    def pages(number: int) -> tuple[str, str, bytes, dict[str, str]]:
        start = random.Random(number).randrange(1, max(2, events - 1000))
        return "GET", f"/v1/games/{game}/events?pageSize=1000&fromVersion={start}", b"", {}

    def replays(number: int) -> tuple[str, str, bytes, dict[str, str]]:
        return "GET", f"/v1/games/{game}/replay?atVersion={random.Random(number).randrange(1, events)}", b"", {}

    export, finished_export = _get(f"/v1/games/{game}:export"), _get(f"/v1/games/{scene.finished}:export")
    export_request = api.ExportGameRequest(game_id=game).SerializeToString()
    export_proto: hostile.Request = lambda number: (  # noqa: E731
        "POST",
        "/ludotheque.v1.GameService/ExportGame",
        export_request,
        {"Content-Type": "application/proto"},
    )
    replay_log: hostile.Request = lambda number: (  # noqa: E731
        "POST",
        "/ludotheque.v1.GameService/ReplayLog",
        scene.replay_request,
        {"Content-Type": "application/proto"},
    )
    return [
        AttackClass("export of a long unfinished game, 1 client", "export", http(1, export)),
        AttackClass("the same, 4 clients", "export", http(4, export)),
        AttackClass("the same in protobuf (Connect: no JSON), 4 clients", "export", http(4, export_proto)),
        AttackClass("export of a long finished game, 4 clients", "export", http(4, finished_export)),
        AttackClass("ListEvents pages of 1,000, 4 clients", "page", http(4, pages)),
        AttackClass("ReplayLog of a ~1 MB log, 1 client", "replay", http(1, replay_log)),
        AttackClass("the same, 4 clients", "replay", http(4, replay_log)),
        AttackClass("ReplayGame far into a long game, 8 clients", "replay", http(8, replays)),
        *_never_read(scene, profile),
        *_bodies(scene),
        *_http2(scene),
        *_slow(scene, profile),
        *_sessions(scene),
    ]


def _never_read(scene: Scene, profile: AttackProfile) -> list[AttackClass]:
    def opened(opener: hostile.Opener, count: int) -> Run:
        spread = profile.window / 2
        return lambda attacker, stop: hostile.never_read(
            scene.target, opener, scene.finished, count, spread, attacker, stop
        )

    sse, streams = profile.sse_streams, profile.streams
    return [
        AttackClass(f"{sse} SSE streams never read, 8 addresses", "stream", opened(hostile.sse_stream, sse)),
        AttackClass(f"{streams} Connect streams never read", "stream", opened(hostile.connect_stream, streams)),
        AttackClass(f"{streams} gRPC StreamEvents never read", "stream", opened(hostile.grpc_stream, streams)),
        AttackClass(f"{streams} WebSocket catch-ups never read", "join", opened(hostile.play_join, streams)),
    ]


def _bodies(scene: Scene) -> list[AttackClass]:
    big = json.dumps({"kind": "pirates", "seats": ["x" * (BIG_BODY - 40)]}).encode()
    plain = {"Content-Type": "application/json"}
    bomb = {**plain, "Content-Encoding": "gzip"}
    return [
        AttackClass(
            "1 MB JSON bodies to CreateGame, 2 clients",
            "body",
            lambda attacker, stop: hostile.requests(
                scene.target, 2, lambda n: ("POST", "/v1/games", big, plain), attacker, stop
            ),
        ),
        AttackClass(
            f"gzip bombs ({BOMB_BYTES >> 20} MB of zeros, about 48 KB sent), 2 clients",
            "bomb",
            lambda attacker, stop: hostile.requests(
                scene.target, 2, lambda n: ("POST", "/v1/games", scene.bomb, bomb), attacker, stop
            ),
        ),
    ]


def _http2(scene: Scene) -> list[AttackClass]:
    grpc, game = scene.target.grpc_target, scene.own_game
    budget = hostile.FLOOD_BUDGET

    def flooding(flood: Callable[[str], floods.Outcome]) -> Run:
        return lambda attacker, stop: hostile.flood_loop(flood, attacker, stop)

    return [
        AttackClass(
            "HTTP/2 CONTINUATION flood",
            "connection",
            flooding(lambda source: floods.continuation_flood(grpc, budget, source)),
        ),
        AttackClass("HTTP/2 rapid reset", "HEADERS + RST_STREAM", lambda a, s: hostile.rapid_reset(scene.target, a, s)),
        AttackClass(
            "HTTP/2 SETTINGS flood", "connection", flooding(lambda source: floods.settings_flood(grpc, budget, source))
        ),
        AttackClass(
            "HTTP/2 PING flood beside a call",
            "connection",
            flooding(lambda source: floods.ping_flood(grpc, game, budget, source)),
        ),
        AttackClass(
            "HTTP/2 zero window", "connection", flooding(lambda source: floods.zero_window(grpc, game, source=source))
        ),
    ]


def _slow(scene: Scene, profile: AttackProfile) -> list[AttackClass]:
    connections, bodies = profile.slow_connections, profile.slow_bodies
    return [
        AttackClass(
            f"{connections:,} slow connections (a header line a second)",
            "connection",
            lambda attacker, stop: hostile.slow_connections(scene.target, connections, attacker, stop),
        ),
        AttackClass(
            f"{bodies} request bodies a byte a second",
            "connection",
            lambda attacker, stop: hostile.slow_bodies(scene.target, bodies, attacker, stop),
        ),
    ]


def _sessions(scene: Scene) -> list[AttackClass]:
    game, tokens = scene.own_game, scene.own_tokens

    def claims(attacker: Attacker, stop: threading.Event) -> None:
        before = _version(scene, game, tokens[0])
        forged = f"/v1/games/{game}?knownVersion={before + 250}&knownReceipt={secrets.token_urlsafe(32)}"
        hostile.requests(scene.target, 1, _get(forged, tokens[0]), attacker, stop)
        if _version(scene, game, tokens[0]) != before:
            attacker.record("the game's version moved", requests=0)

    def guesses(number: int) -> tuple[str, str, bytes, dict[str, str]]:
        code = "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
        return "POST", f"/v1/games/{code}:join", b'{"name":"Guess"}', {"Content-Type": "application/json"}

    return [
        AttackClass(
            "illegal WebSocket commands, 4 sessions",
            "command",
            lambda attacker, stop: hostile.illegal_commands(scene.target, game, tokens[1], 4, attacker, stop),
        ),
        AttackClass("forged known_version claims", "claim", claims),
        AttackClass(
            "join-code guessing, 1 client",
            "guess",
            lambda attacker, stop: hostile.requests(scene.target, 1, guesses, attacker, stop),
        ),
    ]


def _version(scene: Scene, game_id: str, token: str) -> int:
    assert scene.server is not None
    with Client(scene.server.target, token=token, retries=0) as seat:
        return int(seat.get_game(game_id).version)


def names(profile: AttackProfile) -> list[str]:
    """The classes' names, in the order of the report, without a server."""
    return [attack.name for attack in classes(Scene(None, hostile.Server(0, 0)), profile)]
