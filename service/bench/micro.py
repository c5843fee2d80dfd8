"""Micro-benchmarks of the engines, in this process, on one core (CPU time).

- games: full games per second (setup, then moves chosen among legal_commands,
  decide, evolve), as a bot-only game server would play them: random legal moves,
  but Pirates & Compagnie's are the greedy bot's (see PLAYERS);
- replay: events per second rebuilt from their stored bytes (as ReplayGame reads them:
  parsed at once, seam.stored_payloads, then the engine's evolve_all), beside the
  protobuf parse of the same bytes alone, each event's Event envelope on its own: the
  floor that a replay parsing each event pays;
- app: GameApp alone (memory store, no transport), CPU per move (back to back, or
  after a pause before each move: machine_floor.py);
- own work: per move, what the engine itself does for the moves and answers of the
  app benchmark (decide, evolve, the answer's redacted events, view and legal
  commands), and the descriptions those answers carry, beside GameApp's cost;
- ReplayGame: GameApp (memory store) answering a seat's ReplayGame at the last version
  but one of a long game (bots only, played out at creation): the events read from
  the store, parsed and folded, then the seat's view and legal commands."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, Viewer, fold
from engines.describers import DESCRIBERS
from engines.registry import ENGINES, AnyEngine
from service.bench import seam
from service.bench.load import seats_for

# Who chooses the moves of a benchmark game, per game kind: a bot of the engine's.
# Uniformly random Pirates & Compagnie players rarely empty a hand (they draw as often
# as they lay), so a game runs to thousands of moves, nothing like a game people play:
# its games are the greedy bot's (about 250 moves for two players), so that games per
# second compare across kinds.
PLAYERS = {"pirates": "greedy"}


def player_of(engine: AnyEngine) -> str:
    return PLAYERS.get(engine.kind, "random")


@dataclass(frozen=True, slots=True)
class EngineFigures:
    kind: str
    player: str  # the bot that chose the moves (PLAYERS)
    games_per_second: float
    moves_per_game: float
    replay_events_per_second: float
    parse_events_per_second: float

    @property
    def replay_to_parse(self) -> float:
        return self.replay_events_per_second / self.parse_events_per_second


def _seats(engine: AnyEngine) -> list[SeatInfo]:
    count = min(max(engine.min_seats, 2), engine.max_seats)
    return [SeatInfo(age=20 + i) for i in range(count)]


def bench_game(engine: AnyEngine, rng: random.Random) -> list[tuple[int | None, Any, list[Any]]]:
    """One game, its moves chosen by the kind's player (PLAYERS): (seat, command,
    events) per step, the deal first."""
    choose = engine.bots[player_of(engine)]
    seats = _seats(engine)
    options = engine.resolve_options(engine.options_type(), seats)
    dealt = engine.setup(options, seats, rng)
    steps: list[tuple[int | None, Any, list[Any]]] = [(None, None, dealt)]
    state = fold(engine, dealt)
    while not (status := engine.status(state)).finished:
        seat = status.to_act[0]
        command = choose(state, seat, rng)
        events = engine.decide(state, seat, command, rng)
        for event in events:
            state = engine.evolve(state, event)
        steps.append((seat, command, events))
    return steps


def games_per_second(engine: AnyEngine, budget: float, seed: int = 1) -> tuple[float, float]:
    """Full games per CPU second (bench_game), and the moves a game takes."""
    rng = random.Random(seed)
    games = moves = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < budget or games == 0:
        moves += len(bench_game(engine, rng)) - 1
        games += 1
    return games / elapsed, moves / games


def stored_events(engine: AnyEngine, events: int, seed: int = 2) -> list[list[bytes]]:
    """Benchmark games' events as the server stores them (envelopes with version, seat,
    command id, time, rules version and the move on its first event)."""
    rng = random.Random(seed)
    recorded_at = Timestamp()
    recorded_at.FromMilliseconds(1_700_000_000_000)
    stored: list[list[bytes]] = []
    while sum(len(blobs) for blobs in stored) < events:  # whole games, at least `events` events
        blobs: list[bytes] = []
        for seat, command, payloads in bench_game(engine, rng):
            for index, payload in enumerate(payloads):
                event = seam.event_envelope(engine.kind, payload)
                event.version = len(blobs) + 1
                event.recorded_at.CopyFrom(recorded_at)
                event.rules_version = engine.rules_version
                if seat is not None:
                    event.seat = seat
                    event.command_id = f"{seat}-{len(blobs)}"
                    if index == 0:
                        event.command.CopyFrom(seam.command_envelope(engine.kind, command))
                blobs.append(event.SerializeToString())
        stored.append(blobs)
    return stored


def replay_rates(engine: AnyEngine, budget: float) -> tuple[float, float]:
    """Events per CPU second: rebuilt by replay (parse + evolve), and parsed only."""
    games = stored_events(engine, 2000)
    parse = game_pb2.Event.FromString

    def parse_only() -> int:
        count = 0
        for blobs in games:
            for blob in blobs:
                parse(blob)
            count += len(blobs)
        return count

    # A replay starts from the same bytes, as the store returns them (with their
    # versions), and reads them as ReplayGame does.
    items = [seam.as_stored(blobs) for blobs in games]

    def replay() -> int:
        count = 0
        for stored in items:
            fold(engine, seam.stored_payloads(stored, engine.kind))
            count += len(stored)
        return count

    return _rate(replay, budget), _rate(parse_only, budget)


def _rate(work: Any, budget: float) -> float:
    work()  # warm up
    events = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < budget or events == 0:
        events += work()
    return events / elapsed


def engine_figures(budget: float) -> list[EngineFigures]:
    figures = []
    for kind, engine in sorted(ENGINES.items()):
        rate, moves = games_per_second(engine, budget)
        replayed, parsed = replay_rates(engine, budget)
        figures.append(EngineFigures(kind, player_of(engine), rate, moves, replayed, parsed))
    return figures


@dataclass(frozen=True, slots=True)
class AppFigures:
    """GameApp alone (memory store, no transport): CPU per move, as the unary path
    drives it (SubmitCommand, and GetGame when the turn passes), responses encoded."""

    kind: str
    moves: int
    us_per_move: float
    calls_per_move: float


def app_figures(kind: str, budget: float, seed: int = 3, pause: float = 0.0, spin: bool = False) -> AppFigures:
    """`pause`: seconds the loop sleeps before each move (idle, as a server between a
    crowd's moves), outside the count: the move's own CPU after a wake-up. `spin`: the
    process stays busy through the pause instead (it never sleeps)."""
    return asyncio.run(_app_moves(kind, budget, seed, pause, spin))


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def _app_moves(kind: str, budget: float, seed: int, pause: float, spin: bool) -> AppFigures:
    from ludotheque.v1 import game_service_pb2 as api

    app = seam.in_process_app(metrics=True)
    rng = random.Random(seed)
    moves = calls = 0
    elapsed = 0.0
    while elapsed < budget or moves == 0:
        created = await app.games.create_game(api.CreateGameRequest(kind=kind, seats=seats_for(kind)), "")
        game_id, tokens = created.game_id, created.seat_tokens
        start = time.process_time()
        seat = created.game.to_act[0]
        # The answers' own repeated fields are chosen from (a list would copy them).
        legal: Sequence[game_pb2.Command] = (
            await app.games.get_game(api.GetGameRequest(game_id=game_id), tokens[seat])
        ).legal_commands
        calls += 1
        while True:
            if pause:
                elapsed += time.process_time() - start
                if spin:
                    _spin(pause)
                else:
                    await asyncio.sleep(pause)
                start = time.process_time()
            request = api.SubmitCommandRequest(game_id=game_id, command=rng.choice(legal), command_id=f"m{moves}")
            response = await app.moves.submit(request, tokens[seat])
            response.SerializeToString()
            moves += 1
            calls += 1
            if response.status == game_pb2.GAME_STATUS_FINISHED or not response.to_act:
                break
            if response.to_act[0] == seat:
                legal = response.legal_commands
            else:
                seat = response.to_act[0]
                game = await app.games.get_game(api.GetGameRequest(game_id=game_id), tokens[seat])
                game.SerializeToString()
                legal = game.legal_commands
                calls += 1
        elapsed += time.process_time() - start
    return AppFigures(kind, moves, elapsed / moves * 1e6, calls / moves)


@dataclass(frozen=True, slots=True)
class ReplayGameFigures:
    """ReplayGame at a late version: the events folded per call, and CPU per call."""

    kind: str
    events: int  # the version replayed (events read, parsed and folded)
    us_per_call: float

    @property
    def events_per_second(self) -> float:
        return self.events / self.us_per_call * 1e6


LONG_GAME = 1000  # events: a game this long is long enough to replay


def replay_game_figures(budget: float) -> list[ReplayGameFigures]:
    return [asyncio.run(_replay_game(kind, budget)) for kind in sorted(ENGINES)]


async def _replay_game(kind: str, budget: float) -> ReplayGameFigures:
    from ludotheque.v1 import game_service_pb2 as api

    # Snapshots off: the fold of every event is what is measured here (the long games'
    # table measures the same replay from the nearest snapshot).
    app = seam.in_process_app(metrics=True, snapshot_interval=0)
    # Random bots: Pirates & Compagnie's play thousands of moves (the long game); the
    # longest of a few games of the other kinds, whose games are short whoever plays.
    longest: tuple[int, str, str] = (0, "", "")
    for _ in range(8):
        if longest[0] >= LONG_GAME:
            break
        seats = [game_pb2.SeatSpec(name=spec.name, age=spec.age, bot="random") for spec in seats_for(kind)]
        created = await app.games.create_game(api.CreateGameRequest(kind=kind, seats=seats), "")
        longest = max(longest, (created.game.version, created.game_id, created.seat_tokens[0]))
    version, game_id, token = longest
    request = api.ReplayGameRequest(game_id=game_id, at_version=version - 1)
    await app.history.replay(request, token)  # warm up
    calls = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < budget or calls == 0:
        (await app.history.replay(request, token)).SerializeToString()
        calls += 1
    return ReplayGameFigures(kind, version - 1, elapsed / calls * 1e6)


@dataclass(frozen=True, slots=True)
class WorkFigures:
    """One kind's moves as GameApp's driver plays them (`app`), and, per move, the
    engine's own work their answers need: `engine_us` (decide, evolve, status, the
    events redacted for the mover, the view and legal commands of each answer) and
    `descriptions_us` (those events and legal commands described, in English)."""

    kind: str
    app: AppFigures
    moves: int  # measured for the engine's own work
    engine_us: float
    descriptions_us: float

    @property
    def own_us(self) -> float:
        """The engine's own work, descriptions included."""
        return self.engine_us + self.descriptions_us

    @property
    def app_to_own(self) -> float:
        return self.app.us_per_move / self.own_us


def work_figures(budget: float) -> list[WorkFigures]:
    figures = []
    for kind, engine in sorted(ENGINES.items()):
        moves, engine_us, descriptions_us = own_work(engine, budget)
        figures.append(WorkFigures(kind, app_figures(kind, budget), moves, engine_us, descriptions_us))
    return figures


# One recorded game of the app benchmark's kind: its dealt state, then (seat, command, seed
# of the decision's randomness) per move.
Recorded = tuple[Any, list[tuple[int, Any, int]]]
# What one answer shows: the events redacted for its viewer, its view, its legal commands.
Answer = tuple[list[Any], Any, list[Any]]


def recorded_games(engine: AnyEngine, moves: int, seed: int = 4) -> list[Recorded]:
    """Games of random legal moves, as GameApp's driver plays them (app_figures): at
    least `moves` moves in all."""
    rng = random.Random(seed)
    games: list[Recorded] = []
    total = 0
    while total < moves or not games:
        seats = _seats(engine)
        dealt = engine.setup(engine.resolve_options(engine.options_type(), seats), seats, rng)
        state = start = fold(engine, dealt)
        played: list[tuple[int, Any, int]] = []
        status = engine.status(state)
        while not status.finished and status.to_act:
            seat = status.to_act[0]
            command, decision = rng.choice(engine.legal_commands(state, seat)), rng.getrandbits(63)
            for event in engine.decide(state, seat, command, seam.decision_rng(decision)):
                state = engine.evolve(state, event)
            played.append((seat, command, decision))
            status = engine.status(state)
        games.append((start, played))
        total += len(played)
    return games


def answers(engine: AnyEngine, games: Sequence[Recorded], keep: list[Answer] | None = None) -> int:
    """The engine's own work of GameApp's driver on `games`: each move decided and
    evolved, its answer to the mover (its events redacted, the view, the legal
    commands), and when the turn passes the next seat's view and legal commands (its
    GetGame); the first seat's too at the start. Returns the moves played."""
    moves = 0
    for start, played in games:
        state = start
        seat = engine.status(state).to_act[0]
        viewer = Viewer.player(seat)
        view, legal = engine.view(state, viewer), engine.legal_commands(state, seat)
        if keep is not None:
            keep.append(([], view, legal))
        for seat, command, decision in played:
            events = engine.decide(state, seat, command, seam.decision_rng(decision))
            for event in events:
                state = engine.evolve(state, event)
            viewer = Viewer.player(seat)
            redacted = [seen for event in events if (seen := engine.redact(event, viewer)) is not None]
            view, legal = engine.view(state, viewer), engine.legal_commands(state, seat)
            if keep is not None:
                keep.append((redacted, view, legal))
            status = engine.status(state)
            if not status.finished and status.to_act and status.to_act[0] != seat:
                following = status.to_act[0]
                view = engine.view(state, Viewer.player(following))
                legal = engine.legal_commands(state, following)
                if keep is not None:
                    keep.append(([], view, legal))
        moves += len(played)
    return moves


def describe_answers(kind: str, kept: Sequence[Answer], names: Sequence[str]) -> None:
    """The descriptions of answers: each event's and each legal command's phrase (with
    its choice steps' labels), rendered as Description messages."""
    describer = DESCRIBERS[kind]
    words = seam.english_words()
    for events, view, legal in kept:
        for event in events:
            words.describe(describer.describe_event(event), names)
        for described in describer.describe_commands(legal, view):
            words.describe(described.phrase, names)
            for step in described.steps:
                words.describe(step.label, names)


def own_work(engine: AnyEngine, budget: float) -> tuple[int, float, float]:
    """(moves, engine µs per move, descriptions µs per move), in CPU time."""
    games = recorded_games(engine, 2000)
    kept: list[Answer] = []
    moves = answers(engine, games, kept)  # also warms up
    names = [seat.name for seat in seats_for(engine.kind)]
    engine_seconds = _per_pass(lambda: answers(engine, games), budget)
    describe_answers(engine.kind, kept, names)  # warm up
    descriptions_seconds = _per_pass(lambda: describe_answers(engine.kind, kept, names), budget)
    return moves, engine_seconds / moves * 1e6, descriptions_seconds / moves * 1e6


def _per_pass(work: Any, budget: float) -> float:
    """CPU seconds that one call of `work` takes, over as many as fit in `budget`."""
    passes = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < budget or passes == 0:
        work()
        passes += 1
    return elapsed / passes
