"""Every registered game under the same proof (tests/support/engine_properties.py),
from what its registration declares (engines/<kind>/proof.py): random games with
random options and seats, through legal_commands, keep every rule (no viewer learns
from a view, a move's events or their words more than the registration's `reveals`
says the move shows it); they end, conserve their items and replay; bots play legal
moves on what their seat knows; the suite's perturbation really changes what a viewer
may not know, its events check compares worlds that differ, and catches a redaction
that leaks. No game opts in: a folder of engines/ is tested here as soon as it
registers (its example's too). A game that hides nothing (`hides_nothing=True`) skips
the checks of hidden information, which have nothing to compare, and is held to its
word instead: every viewer sees what the admin sees."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.contract import SeatInfo, Viewer
from engines.registry import GAMES, AnyEngine
from tests.support.engine_properties import (
    check_bots_see_only_their_seat,
    check_random_game,
    deal,
    quick,
    random_seats,
    spec,
    viewers,
)
from tests.support.kinds import EVERY_KIND

seeds = st.integers(min_value=0, max_value=2**32)


def with_secrets(kind: str) -> None:
    """Skips a test of hidden information for a game that hides nothing."""
    if GAMES[kind].proof.hides_nothing:
        pytest.skip(f"{kind} hides nothing: every viewer sees what the admin sees (checked at every step)")


# From the hypothesis profile (tests/conftest.py). Every step of a game is checked
# against every viewer and every command one could send: a fraction of the profile's
# examples keeps each game near its former module's time.
EXAMPLES = settings().max_examples


def random_game(kind: str, seed: int) -> tuple[Message, list[Any]]:
    """Options and seats for a random game of `kind`, from its registration."""
    game, rng = GAMES[kind], random.Random(seed)
    seats = random_seats(game.engine, rng)
    return game.proof.random_options(rng, len(seats)), seats


@pytest.mark.parametrize("kind", EVERY_KIND)
@settings(max_examples=max(EXAMPLES // 4, 10))
@given(seed=seeds)
def test_random_games_keep_every_rule(kind: str, seed: int) -> None:
    options, seats = random_game(kind, seed)
    check_random_game(spec(kind), options, seats, seed, GAMES[kind].proof.player)


@pytest.mark.parametrize("kind", EVERY_KIND)
@settings(max_examples=max(EXAMPLES // 2, 10))
@given(seed=seeds, uniform=st.booleans())
def test_many_random_games_end_conserve_their_items_and_replay(kind: str, seed: int, uniform: bool) -> None:
    """By the game's own random players, or by players choosing uniformly among the
    legal commands (every move, however unwise: still the game ends)."""
    options, seats = random_game(kind, seed)
    player = None if uniform else GAMES[kind].proof.player
    check_random_game(spec(kind), options, seats, seed, player, every_step=False)


@pytest.mark.parametrize("kind", EVERY_KIND)
@settings(max_examples=max(EXAMPLES // 8, 10))
@given(seed=seeds, data=st.data())
def test_bots_play_legal_moves_to_the_end(kind: str, seed: int, data: st.DataObject) -> None:
    engine = GAMES[kind].engine
    options, seats = random_game(kind, seed)
    bots = [data.draw(st.sampled_from(sorted(engine.bots))) for _ in seats]

    def choose(state: Any, seat: int, legal: list[Message], rng: random.Random) -> Message:
        command: Message = quick(engine.bots[bots[seat]])(state, seat, rng)
        assert command in legal, f"the {bots[seat]} bot chose an illegal move"
        return command

    played = check_random_game(spec(kind), options, seats, seed, choose, every_step=False)
    assert engine.status(played.states[-1]).finished


@pytest.mark.parametrize("kind", EVERY_KIND)
@settings(max_examples=max(EXAMPLES // 8, 10))
@given(seed=seeds, data=st.data())
def test_bots_decide_only_on_what_their_seat_knows(kind: str, seed: int, data: st.DataObject) -> None:
    """A bot given two worlds its seat cannot tell apart makes the same move."""
    with_secrets(kind)
    game = GAMES[kind]
    options, seats = random_game(kind, seed)
    waiting: list[Any] = []  # the states where a move was asked for

    def choose(state: Any, seat: int, legal: list[Message], rng: random.Random) -> Message:
        waiting.append(state)
        return game.proof.player(state, seat, legal, rng) if game.proof.player else rng.choice(legal)

    check_random_game(spec(kind), options, seats, seed, choose, every_step=False)
    check_bots_see_only_their_seat(spec(kind), waiting, 10, lambda: random.Random(data.draw(seeds)))


@pytest.mark.parametrize("kind", EVERY_KIND)
@pytest.mark.parametrize("viewer", [Viewer.spectator(), Viewer.player(0)], ids=["spectator", "seat 0"])
def test_the_perturbation_really_changes_what_a_viewer_may_not_know(kind: str, viewer: Viewer) -> None:
    """The views' check is worth something only if the other world differs: for a
    spectator and for a seat, in most states of a game's start, it must. (That it
    changes nothing the viewer may know, and keeps every item, the suite checks at
    every step; that the admin knows everything, too.)"""
    with_secrets(kind)
    game = GAMES[kind]
    assert game.proof.perturb is not None
    changed = tried = 0
    for seed in range(10):
        options, seats = random_game(kind, seed)
        state, _ = deal(spec(kind), options, seats, seed)
        rng = random.Random(seed)
        for _ in range(3):
            tried += 1
            changed += game.proof.perturb(state, viewer, rng) != state
    assert changed >= 0.6 * tried, f"perturb changed {changed} of {tried} dealt states"


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_the_events_check_compares_worlds_that_differ(kind: str) -> None:
    """The events' check (two viewers a move) is worth something only if the worlds it
    compares differ: in a fair share of the moves they must (measured, a viewer's moves:
    a third for highlow, whose every call shows the next card; about two thirds for the
    others)."""
    with_secrets(kind)
    compared = moves = 0
    for seed in range(3):
        options, seats = random_game(kind, seed)
        played = check_random_game(spec(kind), options, seats, seed, GAMES[kind].proof.player)
        compared, moves = compared + played.worlds_compared, moves + len(played.commands)
    assert compared >= 0.2 * 2 * moves, f"{compared} comparisons in other worlds for {moves} moves"


class ShowingEverything:
    """An engine whose redaction shows every event whole to every viewer, as a leaky
    one would: otherwise the engine it wraps."""

    def __init__(self, engine: AnyEngine) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def redact(self, event: Message, viewer: Viewer) -> Message:
        return event


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_a_redaction_that_leaks_a_move_is_caught(kind: str) -> None:
    """The events' check can fail: an engine whose moves' events hide something from
    some viewer (its cards drawn) fails it once its redaction shows them to all. A
    game whose moves hide nothing (every secret in its deal) has nothing to leak."""
    with_secrets(kind)
    game = GAMES[kind]
    options, seats = game.engine.options_type(), [SeatInfo()] * max(game.engine.min_seats, 2)
    played = check_random_game(spec(kind), options, seats, 0, game.proof.player, every_step=False)
    dealt = next(i for i, state in enumerate(played.states) if game.engine.status(state).to_act)
    hiding = [
        event
        for event in played.events[dealt + 1 :]
        for viewer in viewers(len(seats))
        if game.engine.redact(event, viewer) != event
    ]
    if not hiding:
        pytest.skip(f"{kind}'s moves hide nothing: its secrets are all in its deal")
    leaky = replace(spec(kind), engine=ShowingEverything(game.engine))
    with pytest.raises(AssertionError, match="can tell from the events"):
        check_random_game(leaky, options, seats, 0, game.proof.player)


DEALS = 400  # deals per kind, grouped by what a viewer sees of them


def check_deals(kind: str, engine: AnyEngine) -> int:
    """Among DEALS deals of the same options and seats, those that leave a seat the same
    view and show everyone the same (the deal as a spectator reads it: what was turned
    up for all, even if no view keeps it) give that seat the same redacted deal. How
    many deals were compared with another."""
    options, seats = random_game(kind, 0)
    spectator = Viewer.spectator()
    groups: dict[tuple[int, bytes, bytes], list[list[Message | None]]] = {}
    for seed in range(DEALS):
        state, played = deal(replace(spec(kind), engine=engine), options, seats, seed)
        public = b"".join(
            (engine.redact(event, spectator) or Message()).SerializeToString(deterministic=True)
            for event in played.events
        )
        for seat in range(len(seats)):
            viewer = Viewer.player(seat)
            seen = engine.view(state, viewer).SerializeToString(deterministic=True)
            groups.setdefault((seat, seen, public), []).append([engine.redact(e, viewer) for e in played.events])
    compared = 0
    for (seat, _, _), deals in groups.items():
        for other in deals[1:]:
            compared += 1
            assert other == deals[0], f"seat {seat} tells two deals apart that its view and the public deal do not"
    return compared


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_a_seat_learns_from_the_deal_only_what_its_view_and_the_public_deal_show(kind: str) -> None:
    """The moves' check shares the deal between its two worlds (the same randomness),
    so this one compares deals instead: the others' hands and the deck stay hidden. (A
    game whose seats' views seldom match, Pirates' five cards each, finds no two deals
    to compare here: its own tests deal two worlds, tests/pirates/test_properties.py.)"""
    with_secrets(kind)
    check_deals(kind, GAMES[kind].engine)


class ShowingSeats:
    """A leaky engine that shows every event whole to the seats only (a spectator reads
    it as before): otherwise the engine it wraps."""

    def __init__(self, engine: AnyEngine) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def redact(self, event: Message, viewer: Viewer) -> Message | None:
        return event if viewer.seat is not None else self._engine.redact(event, viewer)


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_a_redaction_that_leaks_the_deal_is_caught(kind: str) -> None:
    with_secrets(kind)
    engine = GAMES[kind].engine
    if not check_deals(kind, engine):
        pytest.skip(f"no two deals of {kind} leave a seat the same view: nothing to compare")
    with pytest.raises(AssertionError, match="tells two deals apart"):
        check_deals(kind, ShowingSeats(engine))


@pytest.mark.parametrize("kind", [kind for kind in EVERY_KIND if not GAMES[kind].proof.hides_nothing])
def test_a_game_with_secrets_that_says_it_hides_nothing_is_caught(kind: str) -> None:
    """The declaration is checked, not trusted: a game whose views or events hide
    something from some viewer fails the suite once its proof says it hides nothing."""
    game = GAMES[kind]
    options, seats = game.engine.options_type(), [SeatInfo()] * max(game.engine.min_seats, 2)
    boasting = replace(spec(kind), perturb=None, reveals=None, hides_nothing=True)
    with pytest.raises(AssertionError, match="says it hides nothing"):
        check_random_game(boasting, options, seats, 0, game.proof.player)
