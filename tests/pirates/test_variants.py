"""Pirates & Compagnie's variants: "ohé!", special kinds taken out, open hands
(see seeds/pirates/RULES.md)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import Viewer
from engines.pirates import ENGINE
from engines.pirates.cards import PARROT
from engines.pirates.state import PiratesState
from tests.pirates.helpers import (
    CIRCLE,
    DRAW,
    FLOWER,
    SQUARE,
    STAR,
    bottle,
    kinds,
    new_state,
    pirate,
    play,
    run,
    seats,
    table,
    to_act,
)
from tests.support.refusals import refused

OHE = pb.Options(ohe_variant=True)


# --- "ohé!" --------------------------------------------------------------------------------


def two_cards(options: pb.Options = OHE) -> PiratesState:
    hands = [[pirate(FLOWER, 1), pirate(FLOWER, 2)], [pirate(STAR, 3), pirate(STAR, 4)]]
    return table(hands, pirate(FLOWER, 5), pile=[pirate(CIRCLE, 9)], options=options)


def test_going_down_to_one_card_with_ohe_costs_nothing() -> None:
    state, events = run(two_cards(), 0, play(pirate(FLOWER, 1), ohe=True))
    assert kinds(events) == ["card_played", "turn_passed"]
    assert events[0].card_played.called_ohe and events[0].card_played.hand_size == 1
    assert state.hands[0] == (pirate(FLOWER, 2),)


def test_forgetting_ohe_costs_a_penalty_card() -> None:
    state, events = run(two_cards(), 0, play(pirate(FLOWER, 1)))
    assert kinds(events) == ["card_played", "cards_drawn", "turn_passed"]
    penalty = events[1].cards_drawn
    assert penalty.reason == pb.DRAW_REASON_OHE and penalty.count == 1
    assert state.hands[0] == (pirate(FLOWER, 2), pirate(CIRCLE, 9))
    assert to_act(state) == 1 and state.phase == pb.PHASE_PLAY  # the penalty card is not played


def test_the_last_card_laid_with_ohe_ohe_wins_the_round() -> None:
    state = table([[pirate(FLOWER, 1)], [pirate(STAR, 3)]], pirate(FLOWER, 5), options=OHE)
    state, events = run(state, 0, play(pirate(FLOWER, 1), ohe=True))
    assert kinds(events) == ["card_played", "round_won", "round_dealt"]


def test_the_last_card_laid_without_ohe_ohe_is_penalised_and_the_round_goes_on() -> None:
    state = table([[bottle(FLOWER)], [pirate(STAR, 3)]], pirate(FLOWER, 5), pile=[pirate(CIRCLE, 9)], options=OHE)
    state, events = run(state, 0, play(bottle(FLOWER)))
    assert kinds(events) == ["card_played", "cards_drawn", "turn_passed"]
    assert state.hands[0] == (pirate(CIRCLE, 9),) and state.ships == (0, 0)
    assert events[-1].turn_passed.draw_penalty == 2  # the Bottle still works


def test_a_penalty_card_is_found_even_when_the_draw_pile_is_empty() -> None:
    # The card just covered is shuffled into a new draw pile and drawn.
    state = table([[pirate(FLOWER, 1)], [pirate(STAR, 3)]], pirate(FLOWER, 5), rest=1, options=OHE)
    assert state.draw_pile == () and len(state.discard) == 1
    state, events = run(state, 0, play(pirate(FLOWER, 1)))
    assert kinds(events) == ["card_played", "draw_pile_rebuilt", "cards_drawn", "turn_passed"]
    assert state.hands[0] == (pirate(FLOWER, 5),) and state.discard == (pirate(FLOWER, 1),)


def test_ohe_is_offered_both_ways_when_due_and_refused_otherwise() -> None:
    state = two_cards()
    legal = ENGINE.legal_commands(state, 0)
    assert play(pirate(FLOWER, 1), ohe=True) in legal and play(pirate(FLOWER, 1)) in legal
    three = table([[pirate(FLOWER, 1), pirate(FLOWER, 2), pirate(FLOWER, 3)], [pirate(STAR, 3)]], pirate(FLOWER, 5))
    assert refused(ENGINE, replace_options(three, OHE), 0, play(pirate(FLOWER, 1), ohe=True)) == "nothing_to_call"
    assert refused(ENGINE, two_cards(pb.Options()), 0, play(pirate(FLOWER, 1), ohe=True)) == "ohe_not_played"
    assert all(not c.play.call_ohe for c in ENGINE.legal_commands(two_cards(pb.Options()), 0))


def replace_options(state: PiratesState, options: pb.Options) -> PiratesState:
    return replace(state, options=ENGINE.resolve_options(options, seats(state.seat_count)))


def test_a_drawn_card_laid_as_the_next_to_last_card_needs_ohe_too() -> None:
    state = table([[pirate(STAR, 1)], [pirate(STAR, 3)]], pirate(FLOWER, 5), pile=[pirate(FLOWER, 9)], options=OHE)
    state, _ = run(state, 0, DRAW)
    assert play(pirate(FLOWER, 9), ohe=True) in ENGINE.legal_commands(state, 0)
    state, events = run(state, 0, play(pirate(FLOWER, 9)))
    assert kinds(events) == ["card_played", "cards_drawn", "turn_passed"]


# --- special kinds taken out -------------------------------------------------------------


@pytest.mark.parametrize(
    "removed",
    [
        [pb.CARD_KIND_PARROT],
        [pb.CARD_KIND_SAILBOAT, pb.CARD_KIND_BOTTLE],
        [pb.CARD_KIND_SAILBOAT, pb.CARD_KIND_BOTTLE, pb.CARD_KIND_SLEEPING_PIRATE, pb.CARD_KIND_PARROT],
    ],
)
def test_removed_special_kinds_never_come_into_play(removed: list[pb.CardKind.ValueType]) -> None:
    state = new_state(2, pb.Options(removed_specials=removed, island_distance=1), seed=9)
    rng = random.Random(2)
    while not ENGINE.status(state).finished:
        seat = to_act(state)
        state, _ = run(state, seat, rng.choice(ENGINE.legal_commands(state, seat)), seed=rng.randrange(99))
        in_play = [c for hand in state.hands for c in hand] + list(state.draw_pile) + list(state.discard)
        assert not any(card.kind in removed for card in in_play)
    assert len(state.removed) == 4 * len(removed)


# --- open hands ------------------------------------------------------------------------------


def test_open_hands_show_every_hand_and_every_drawn_card_to_everyone() -> None:
    state = table(
        [[pirate(STAR, 1), PARROT], [pirate(SQUARE, 3)]],
        pirate(FLOWER, 5),
        pile=[pirate(CIRCLE, 9)],
        options=pb.Options(open_hands=True),
    )
    for viewer in (Viewer.player(1), Viewer.spectator()):
        hands = ENGINE.view(state, viewer).hands
        assert [len(h.cards) for h in hands] == [2, 1]
    after, events = run(state, 0, DRAW)
    assert ENGINE.redact(events[0], Viewer.spectator()) == events[0]
    assert list(ENGINE.view(after, Viewer.player(1)).drawn) == [pirate(CIRCLE, 9).to_proto()]
    assert not ENGINE.view(after, Viewer.spectator()).draw_pile  # the draw pile stays secret
    deal = ENGINE.setup(ENGINE.resolve_options(pb.Options(open_hands=True), seats(2)), seats(2), random.Random(1))
    redacted = ENGINE.redact(deal[1], Viewer.spectator())
    assert redacted is not None
    assert all(len(h.cards) == 5 for h in redacted.round_dealt.hands)
    assert not redacted.round_dealt.draw_pile and redacted.round_dealt.draw_pile_size == 52 - 10 - 1


def test_with_closed_hands_nobody_sees_another_seats_draw() -> None:
    state = table([[pirate(STAR, 1)], [pirate(SQUARE, 3)]], pirate(FLOWER, 5), pile=[pirate(SQUARE, 9)])
    after, events = run(state, 0, DRAW)
    for viewer in (Viewer.player(1), Viewer.spectator()):
        redacted = ENGINE.redact(events[0], viewer)
        assert redacted is not None and not redacted.cards_drawn.cards and redacted.cards_drawn.count == 1
        assert not ENGINE.view(after, viewer).drawn
    assert ENGINE.redact(events[0], Viewer.player(0)) == events[0]
    assert list(ENGINE.view(after, Viewer.player(0)).drawn) == [pirate(SQUARE, 9).to_proto()]
