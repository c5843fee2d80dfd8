"""The property suite every engine must pass, playing random games through
legal_commands. Each game is described by what its registration declares
(engines/<kind>/proof.py, engines/registration.py's Proof): `spec(kind)`;
tests/engines/test_properties.py plays every registered game through it, and a game's
own test module may call `check_random_game` for what only it has to prove.

Checked at every step: the conserved items (cards, tiles) are all there; the game is
over exactly when the rulebook's end condition holds, with its winners (the game's
`outcome`, written in its tests from the state, never asking the engine); every legal
command is accepted; every other command of the game's command universe, from any
seat, is refused with RuleViolation and leaves the state as it was; each viewer's view
is the same in a state perturbed in what that viewer may not know; a legal command,
decided there and in the perturbed state with the same randomness, gives the viewer
the same redacted events, in the same words, the same moves told and the same view
after, unless the game's `reveals` says the command shows it something that differs
between the two; the past read again (`recall`, the memory rule's) shows an event
exactly when `redact` does, never changes it, and the present read again is the present.
A game that hides nothing (its Proof's `hides_nothing`) is not perturbed: every viewer
must see what the admin sees, its view and every event whole. At the end: the game ended
within its bound, replaying the serialised events gives the live state, and the game
stopped half way at an event limit is over for everyone."""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from google.protobuf.message import Message
from ludotheque.v1 import game_pb2

from engines.contract import Bot, RuleViolation, SeatInfo, Viewer, fold
from engines.registration import Move
from engines.registry import GAMES, AnyEngine
from engines.search import SearchBot
from service.app.model import envelopes
from service.app.views import views
from service.app.views.descriptions import Audience

SEATS = [game_pb2.Seat(index=i, name=name) for i, name in enumerate(("Cléo", "Robin", "Lou", "Sam"))]
AUDIENCES = [Audience.of(SEATS, locale) for locale in ("en", "fr")]


@dataclass
class GameSpec:
    engine: AnyEngine
    inventory: Callable[[Any], Counter[Hashable]]  # the conserved items in a state
    command_universe: Callable[[Any], Sequence[Message]]  # legal and illegal commands alike
    # Changes only what the viewer cannot know (None: the game hides nothing).
    perturb: Callable[[Any, Viewer, random.Random], Any] | None
    reveals: Callable[[Move[Any, Any], Viewer], Hashable] | None  # what a move shows the viewer
    max_events: int
    # The rulebook's end condition, read from a state where a move is awaited or the
    # game is over: None while the game must go on, else the winning seats.
    outcome: Callable[[Any], tuple[int, ...] | None]
    # Nothing is hidden from anyone: every viewer sees what the admin sees.
    hides_nothing: bool = False


def spec(kind: str) -> GameSpec:
    """The game of `kind` as its registration describes it for the suite."""
    game = GAMES[kind]
    proof = game.proof
    return GameSpec(
        engine=game.engine,
        inventory=proof.inventory,
        command_universe=proof.command_universe,
        perturb=proof.perturb,
        reveals=proof.reveals,
        max_events=proof.max_events,
        outcome=proof.outcome,
        hides_nothing=proof.hides_nothing,
    )


def random_seats(engine: AnyEngine, rng: random.Random) -> list[SeatInfo]:
    """As many seats as the game takes, some with an age, some without."""
    count = rng.randint(engine.min_seats, engine.max_seats)
    return [SeatInfo(age=rng.choice([None, rng.randint(3, 99)])) for _ in range(count)]


@dataclass
class PlayedGame:
    events: list[Message] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)  # the state after each event
    commands: list[tuple[int, Message]] = field(default_factory=list)
    # How often a move's events were compared in two worlds that differed (the
    # events check's worth: tests/engines/test_properties.py).
    worlds_compared: int = 0


def viewers(seat_count: int) -> list[Viewer]:
    return [*(Viewer.player(s) for s in range(seat_count)), Viewer.spectator()]


def deal(spec: GameSpec, options: Message, seats: Sequence[SeatInfo], seed: int) -> tuple[Any, PlayedGame]:
    """A new game's state once dealt, and the game played so far (its deal)."""
    engine = spec.engine
    resolved = engine.resolve_options(options, seats)
    played = PlayedGame()
    state = engine.initial_state()
    for event in engine.setup(resolved, seats, random.Random(seed)):
        state = engine.evolve(state, event)
        played.events.append(event)
        played.states.append(state)
    return state, played


def check_random_game(
    spec: GameSpec,
    options: Message,
    seats: Sequence[SeatInfo],
    seed: int,
    choose: Callable[[Any, int, list[Any], random.Random], Message] | None = None,
    *,
    every_step: bool = True,
) -> PlayedGame:
    """Plays one random game from `seed`, checking every property on the way.
    With every_step=False, only conservation, termination and replay are checked
    (cheap enough to play thousands of games)."""
    engine = spec.engine
    rng = random.Random(seed)
    state, played = deal(spec, options, seats, seed)
    expected_items = spec.inventory(state)
    while not engine.status(state).finished:
        assert len(played.events) <= spec.max_events, f"no end after {spec.max_events} events"
        assert spec.inventory(state) == expected_items, "an item appeared or vanished"
        check_outcome(spec, state)
        if every_step:
            _check_views(spec, state, len(seats), rng)
            _check_recalled(spec, played, state, len(seats))
        to_act = engine.status(state).to_act
        assert to_act, "an unfinished game must wait for someone"
        seat = to_act[0]
        legal = engine.legal_commands(state, seat)
        assert legal, f"seat {seat} must act but has no legal command"
        if every_step:
            _check_commands(spec, state, len(seats), rng)
            if not spec.hides_nothing:
                played.worlds_compared += check_events_hide_secrets(spec, state, seat, len(seats), rng)
        command = choose(state, seat, legal, rng) if choose else rng.choice(legal)
        events = engine.decide(state, seat, command, random.Random(rng.random()))
        assert events, "an accepted command must produce events"
        played.commands.append((seat, command))
        for event in events:
            state = engine.evolve(state, event)
            played.events.append(event)
            played.states.append(state)
    assert spec.inventory(state) == expected_items
    check_outcome(spec, state)
    _check_views(spec, state, len(seats), rng)
    if spec.hides_nothing:
        _check_events_whole(spec, played.events, len(seats))
    for seat in range(len(seats)):
        assert engine.legal_commands(state, seat) == [], "nothing is legal once the game is over"
    replayed = fold(engine, [type(e).FromString(e.SerializeToString()) for e in played.events])
    assert replayed == state, "replaying the events must give the live state"
    _check_recalled_after_the_game(spec, played, len(seats))
    _check_stopped(spec, played.states[len(played.states) // 2], len(seats), rng)
    return played


def _check_recalled(spec: GameSpec, played: PlayedGame, now: Any, seat_count: int) -> None:
    """The past read again during the game (Engine.recall, the memory rule's where the
    game has one), on a sample of the events so far: each viewer reads again exactly
    the events `redact` shows it, the stored event is never changed, and every viewer's
    view of the present, read again now, is the present."""
    engine = spec.engine
    sample = [*played.events[:: max(1, len(played.events) // 6)], *played.events[-2:]]
    for viewer in viewers(seat_count):
        for event in sample:
            stored = event.SerializeToString()
            recalled = engine.recall(event, now, viewer)
            assert (recalled is None) == (engine.redact(event, viewer) is None), "recall shows what redact shows"
            assert event.SerializeToString() == stored, "recall must not change the stored event"
        seen = engine.view(now, viewer)
        assert engine.recall_view(seen, now, now, viewer) == seen, "the present read again is the present"


def _check_recalled_after_the_game(spec: GameSpec, played: PlayedGame, seat_count: int) -> None:
    """The past read again (Engine.recall): once the game is over every viewer reads it
    as it saw it happen (no memory rule holds any more); the admin always does. On a
    sample of the events (every one would make the suite slow)."""
    engine = spec.engine
    over, half_way = played.states[-1], played.states[len(played.states) // 2]
    sample = played.events[:: max(1, len(played.events) // 40)]
    for viewer in viewers(seat_count):
        for event in sample:
            assert engine.recall(event, over, viewer) == engine.redact(event, viewer), "after the game, all is open"
    for event in sample:
        assert engine.recall(event, half_way, Viewer.admin()) == event, "the admin recalls everything"
    then, admin = played.states[0], Viewer.admin()
    assert engine.recall_view(engine.view(then, admin), then, half_way, admin) == engine.view(then, admin)


def check_outcome(spec: GameSpec, state: Any) -> None:
    """The game is over exactly when the rulebook says, with the winners it says."""
    expected = spec.outcome(state)
    status = spec.engine.status(state)
    if expected is None:
        assert not status.finished, f"the game ended, but the rulebook's end condition does not hold: {status}"
    else:
        assert status.finished, f"the rulebook's end condition holds (winners {expected}), yet the game goes on"
        assert status.winners == expected, f"the rulebook gives the win to {expected}, not {status.winners}"


def _check_stopped(spec: GameSpec, state: Any, seat_count: int, rng: random.Random) -> None:
    """A game stopped at its event limit (engines/limits.py) is over, won by nobody;
    every viewer sees it finished and stopped; nothing may be played or change it."""
    engine = spec.engine
    if engine.status(state).finished:
        return
    stops = engine.stop(state, 123)
    assert stops and all(engine.redact(event, Viewer.spectator()) == event for event in stops), "a stop is public"
    stopped = fold(engine, stops, state)
    status = engine.status(stopped)
    assert status.finished and status.winners == () and status.to_act == ()
    assert "123 events" in status.summary
    for viewer in viewers(seat_count):
        seen = engine.view(stopped, viewer)
        assert (
            seen.phase
            == type(seen).DESCRIPTOR.fields_by_name["phase"].enum_type.values_by_name["PHASE_FINISHED"].number
        )
        assert seen.stopped.event_limit == 123
    for seat in range(seat_count):
        assert engine.legal_commands(stopped, seat) == []
        for command in spec.command_universe(state)[:5]:
            try:
                engine.decide(stopped, seat, command, rng)
            except RuleViolation as violation:
                assert violation.code == "game_over"
            else:
                raise AssertionError("a stopped game accepted a move")
    assert fold(engine, stops, stopped) == stopped, "nothing happens to a stopped game"


# The search budget of a strong bot in the suite's many games (engines/search.py): the
# same code, every move of it, a fraction of the real budget's iterations.
QUICK_ITERATIONS, QUICK_HORIZON = 6, 3


def quick(bot: Bot[Any, Any]) -> Bot[Any, Any]:
    """`bot`, with a few iterations if it searches (tests/engines/test_strong_bots.py
    checks the real budget)."""
    if isinstance(bot, SearchBot):
        return replace(bot, iterations=QUICK_ITERATIONS, horizon=QUICK_HORIZON)
    return bot


def check_bots_see_only_their_seat(
    spec: GameSpec, states: Sequence[Any], samples: int, new_rng: Callable[[], random.Random]
) -> None:
    """At about `samples` of `states`, every bot of the game makes the same move for the
    seat to act in a world perturbed (with a fresh `new_rng()`) in what that seat cannot know."""
    engine = spec.engine
    if spec.perturb is None:
        return  # the game hides nothing: a seat knows all there is
    for state in states[:: max(1, len(states) // samples)]:
        to_act = engine.status(state).to_act
        if not to_act:
            continue
        seat = to_act[0]
        other = spec.perturb(state, Viewer.player(seat), new_rng())
        for name, bot in engine.bots.items():
            bot = quick(bot)
            assert bot(state, seat, random.Random(1)) == bot(other, seat, random.Random(1)), name


def replay_in_two_worlds(
    engine: AnyEngine,
    state_a: Any,
    state_b: Any,
    moves: Iterable[tuple[int, Message, int]],
    viewer: Viewer,
    world_b: Callable[[Message], Message] = lambda event: event,
) -> tuple[Any, Any, bool]:
    """Plays the same moves (seat, command, seed of its random draws) from two states
    `viewer` cannot tell apart: its view before each move and each redacted event must be
    the same in both, and so must the status at the end; so must what the service tells
    the viewer in words (each event's description, its legal commands' descriptions and
    choices, in every language). `world_b` may replace an event of world B (e.g. a later
    deal, dealt otherwise there). Returns the two final states and whether any event
    differed (what the admin would see)."""
    events_differ = False
    for seat, command, decide_seed in moves:
        assert engine.view(state_a, viewer) == engine.view(state_b, viewer)
        for audience in AUDIENCES:
            told_a = views.legal_commands(engine, state_a, viewer, audience)
            assert told_a == views.legal_commands(engine, state_b, viewer, audience), f"{viewer}'s moves tell"
        events_a = engine.decide(state_a, seat, command, random.Random(decide_seed))
        events_b = [world_b(e) for e in engine.decide(state_b, seat, command, random.Random(decide_seed))]
        assert len(events_a) == len(events_b)
        for event_a, event_b in zip(events_a, events_b, strict=True):
            assert engine.redact(event_a, viewer) == engine.redact(event_b, viewer), f"{viewer} can tell: {event_a}"
            for audience in AUDIENCES:
                envelope_a, envelope_b = (envelopes.wrap(game_pb2.Event, engine.kind, e) for e in (event_a, event_b))
                described_a = views.redact(engine, envelope_a, viewer, audience)
                described_b = views.redact(engine, envelope_b, viewer, audience)
                assert described_a == described_b, f"{viewer} can tell from the words: {event_a}"
            events_differ |= event_a != event_b
            state_a, state_b = engine.evolve(state_a, event_a), engine.evolve(state_b, event_b)
    assert engine.status(state_b) == engine.status(state_a)
    return state_a, state_b, events_differ


# How many other worlds the events check tries per viewer and step before it finds
# one where the move shows the same (a card drawn seldom lies the same in both).
TRIES = 3


def check_events_hide_secrets(spec: GameSpec, state: Any, seat: int, seat_count: int, rng: random.Random) -> int:
    """For the seat to act and one other viewer (a seat or a spectator, at random: every
    viewer would double the suite's time): a state perturbed in what the viewer may not
    know, and a command legal for `seat` in both, decided in both with the same
    randomness, that shows the viewer the same in both (`spec.reveals`); the viewer
    must get the same redacted events and the same words for them (each envelope as the
    service describes it, in a language drawn at random), be told the same moves before
    it, and see the same view after. A few tries per viewer; returns how many
    comparisons were made in worlds that differed."""
    engine = spec.engine
    assert spec.perturb is not None and spec.reveals is not None, "a game with secrets says what they are"
    legal = engine.legal_commands(state, seat)
    compared = 0
    others = [viewer for viewer in viewers(seat_count) if not viewer.is_seat(seat)]
    for viewer in (Viewer.player(seat), rng.choice(others)):
        for _ in range(TRIES):
            other = spec.perturb(state, viewer, rng)
            legal_there = {c.SerializeToString(deterministic=True) for c in engine.legal_commands(other, seat)}
            shared = [c for c in legal if c.SerializeToString(deterministic=True) in legal_there]
            if not shared:
                continue
            command, seed = rng.choice(shared), rng.random()
            events = engine.decide(state, seat, command, random.Random(seed))
            events_there = engine.decide(other, seat, command, random.Random(seed))
            after, after_there = fold(engine, events, state), fold(engine, events_there, other)
            shown = spec.reveals(Move(state, seat, command, after), viewer)
            if shown != spec.reveals(Move(other, seat, command, after_there), viewer):
                continue  # the command shows the viewer what tells the worlds apart
            told = (state, events, after), (other, events_there, after_there)
            _assert_told_alike(engine, *told, viewer, rng.choice(AUDIENCES))
            compared += other != state
            break
    return compared


def _assert_told_alike(
    engine: AnyEngine,
    here: tuple[Any, list[Any], Any],
    there: tuple[Any, list[Any], Any],
    viewer: Viewer,
    audience: Audience,
) -> None:
    """The viewer is told the same of a move in two worlds, each given as (the state
    before, the move's events, the state after), in the words of `audience`."""
    (before, events, after), (before_there, events_there, after_there) = here, there
    told = views.legal_commands(engine, before, viewer, audience)
    assert told == views.legal_commands(engine, before_there, viewer, audience), f"{viewer}'s moves tell"
    redacted = [engine.redact(event, viewer) for event in events]
    redacted_there = [engine.redact(event, viewer) for event in events_there]
    assert redacted == redacted_there, f"{viewer} can tell from the events: {redacted} or {redacted_there}"
    described, described_there = (
        [views.redact(engine, envelopes.wrap(game_pb2.Event, engine.kind, e), viewer, audience) for e in side]
        for side in (events, events_there)
    )
    assert described == described_there, f"{viewer} can tell from the events' words"
    assert engine.view(after, viewer) == engine.view(after_there, viewer), f"{viewer} can tell from the view after"


def _check_commands(spec: GameSpec, state: Any, seat_count: int, rng: random.Random) -> None:
    engine = spec.engine
    before = pickle.dumps(state)
    for seat in range(seat_count):
        legal = {c.SerializeToString(deterministic=True) for c in engine.legal_commands(state, seat)}
        for command in spec.command_universe(state):
            key = command.SerializeToString(deterministic=True)
            if key in legal:
                assert engine.decide(state, seat, command, rng), "legal, yet no events"
            else:
                try:
                    engine.decide(state, seat, command, rng)
                except RuleViolation as violation:
                    assert violation.code and violation.message
                else:
                    raise AssertionError(f"seat {seat}: {command} is not in legal_commands but was accepted")
    assert pickle.dumps(state) == before, "deciding must not change the state"


def _check_views(spec: GameSpec, state: Any, seat_count: int, rng: random.Random) -> None:
    """No viewer tells apart two states `perturb` made; in a game that hides nothing,
    every viewer sees what the admin sees."""
    engine = spec.engine
    if spec.perturb is None:
        whole = engine.view(state, Viewer.admin())
        for viewer in viewers(seat_count):
            assert engine.view(state, viewer) == whole, f"the game says it hides nothing, yet {viewer} sees less"
        return
    for viewer in viewers(seat_count):
        other = spec.perturb(state, viewer, rng)
        assert engine.view(state, viewer) == engine.view(other, viewer), f"{viewer} can tell two worlds apart"
        assert spec.inventory(other) == spec.inventory(state), "perturb must keep every item"
    assert spec.perturb(state, Viewer.admin(), rng) == state, "the admin knows everything: nothing to perturb"


def _check_events_whole(spec: GameSpec, events: Sequence[Message], seat_count: int) -> None:
    """A game that hides nothing shows every event whole to every viewer."""
    for event in events:
        for viewer in viewers(seat_count):
            redacted = spec.engine.redact(event, viewer)
            assert redacted == event, f"the game says it hides nothing, yet {viewer} is shown {redacted} of {event}"
