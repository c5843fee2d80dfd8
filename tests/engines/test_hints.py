"""Hints never cheat (engines/hinting.py): the move suggested to a seat and its reason
are the same in two worlds that differ only in what that seat may not know (each game's
`perturb`, engines/<kind>/proof.py), at states of random games; a reason that peeks at
a hidden face is caught by the same check. And every reason has its words in every
language."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from ludotheque.mooki.v1 import mooki_pb2
from ludotheque.text.v1.description_pb2 import Description

from engines.contract import Viewer, fold
from engines.describers import DESCRIBERS
from engines.describing import Describer
from engines.hinting import Hint, hint, hint_bot
from engines.mooki import hints as mooki_hints
from engines.mooki.describe import face
from engines.phrases import Phrase, phrase
from engines.registry import GAMES
from service.app.words.catalogs import catalogs
from tests.support.engine_properties import deal, random_seats, spec
from tests.support.kinds import EVERY_KIND

SAMPLES = 12  # states sampled per game: a strong bot thinks ~0.1 s a hint


def states_to_act(kind: str, seed: int, samples: int = SAMPLES) -> Iterator[tuple[Any, int]]:
    """(state, the seat to act) at about `samples` states of a random game of `kind`."""
    game, rng = GAMES[kind], random.Random(seed)
    engine = game.engine
    seats = random_seats(engine, rng)
    state, _ = deal(spec(kind), game.proof.random_options(rng, len(seats)), seats, seed)
    states = [state]
    while not engine.status(state).finished and len(states) < 2000:
        seat = engine.status(state).to_act[0]
        state = fold(engine, engine.decide(state, seat, rng.choice(engine.legal_commands(state, seat)), rng), state)
        states.append(state)
    for state in states[:: max(1, len(states) // samples)]:
        to_act = engine.status(state).to_act
        if to_act:
            yield state, to_act[0]


def hints_in_two_worlds(kind: str, describer: Describer, seed: int) -> int:
    """Asserts the hint is the same in a world perturbed in what the seat may not know;
    returns how many of the worlds compared differed."""
    game = GAMES[kind]
    engine, perturb = game.engine, game.proof.perturb
    assert perturb is not None
    differed = 0
    rng = random.Random(seed)
    for state, seat in states_to_act(kind, seed):
        other = perturb(state, Viewer.player(seat), rng)
        differed += other != state
        here = hint(engine, describer, state, seat, random.Random(seed))
        there = hint(engine, describer, other, seat, random.Random(seed))
        assert here == there, f"{kind}: seat {seat} is hinted {here} here, {there} in the other world"
    return differed


@pytest.mark.parametrize("kind", EVERY_KIND)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_hint_is_the_same_in_worlds_the_seat_cannot_tell_apart(kind: str, seed: int) -> None:
    if GAMES[kind].proof.hides_nothing:
        pytest.skip(f"{kind} hides nothing: there is no other world to compare")
    assert hints_in_two_worlds(kind, DESCRIBERS[kind], seed) > 0, "no compared world differed: the check is empty"


def peeking(state: Any, view: Any, seat: int, command: mooki_pb2.Command) -> Phrase:
    """A Mooki reason that cheats: it names the face lying under the left pile's top card."""
    if state.piles and state.piles[0]:
        return phrase("mooki.hint.draw_stars", face=face(state.piles[0][0].hidden.to_proto()))
    return mooki_hints.explain(state, view, seat, command)


def test_the_two_worlds_check_catches_a_reason_that_peeks() -> None:
    cheat = replace(DESCRIBERS["mooki"], explain_hint=peeking)
    with pytest.raises(AssertionError, match="other world"):
        hints_in_two_worlds("mooki", cheat, 1)


def test_a_hint_is_one_of_the_seats_legal_moves_and_the_same_when_asked_again() -> None:
    for kind in EVERY_KIND:
        engine = GAMES[kind].engine
        assert hint_bot(engine) in engine.bots
        for state, seat in states_to_act(kind, 3, samples=4):
            first: Hint = hint(engine, DESCRIBERS[kind], state, seat, random.Random(7))
            assert first.command in engine.legal_commands(state, seat)
            assert hint(engine, DESCRIBERS[kind], state, seat, random.Random(7)) == first


def said(reason: Phrase, locale: str) -> Description:
    out = Description()
    catalogs().words(locale).describe(reason, ("Cléo", "Robin", "Lou", "Sam"), into=out)
    return out


def reasons(kind: str) -> Iterator[Phrase]:
    """The reasons of every legal move at states of random games (not only the bot's)."""
    engine, describer = GAMES[kind].engine, DESCRIBERS[kind]
    explain: Callable[..., Phrase] | None = describer.explain_hint
    for seed in range(6):
        for state, seat in states_to_act(kind, seed, samples=40):
            view = engine.view(state, Viewer.player(seat))
            for command in engine.legal_commands(state, seat):
                if explain is not None:
                    yield explain(state, view, seat, command)
                else:
                    yield phrase("hint.generic", move=describer.describe_commands([command], view)[0].phrase)


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_every_reason_has_its_words_in_every_language(kind: str) -> None:
    keys = set()
    for reason in reasons(kind):
        keys.add(reason.key)
        for locale in ("en", "fr"):
            text = said(reason, locale).text
            assert text and "{" not in text, f"{kind} {reason.key} in {locale}: {text!r}"
    for catalog in catalogs().by_locale.values():
        assert keys <= set(catalog.messages), f"{catalog.locale}: {sorted(keys - set(catalog.messages))}"
    if DESCRIBERS[kind].explain_hint is not None:
        assert all(key.startswith(f"{kind}.hint.") or key == "hint.generic" for key in keys)
        assert len(keys) >= 3, f"{kind}: its reasons are hardly varied: {keys}"
