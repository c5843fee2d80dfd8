"""Pirates & Compagnie: one test per rule of the rulebook (see seeds/pirates/RULES.md)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import cast

import pytest
from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import InvalidSetup, Viewer
from engines.pirates import ENGINE
from engines.pirates.cards import COLOURS, DECK, DEFAULT_ISLAND_DISTANCE, PARROT, Card, fits
from engines.pirates.proof import inventory
from engines.pirates.rules import deal_round
from engines.pirates.state import COUNTERCLOCKWISE, PiratesState
from tests.pirates.helpers import (
    CIRCLE,
    DRAW,
    END_TURN,
    FLOWER,
    SQUARE,
    STAR,
    bottle,
    kinds,
    new_state,
    pirate,
    play,
    run,
    sailboat,
    seats,
    sleeping,
    table,
    to_act,
)
from tests.support.refusals import refused

# --- the cards -----------------------------------------------------------------------


def test_the_deck_has_36_pirate_cards_in_4_colours_and_16_specials() -> None:
    assert len(DECK) == 52
    pirates = [c for c in DECK if c.is_pirate]
    assert len(pirates) == 36
    for colour in COLOURS:
        assert sorted(c.value for c in pirates if c.colour == colour) == list(range(1, 10))
    kinds_ = Counter(c.kind for c in DECK if not c.is_pirate)
    assert kinds_ == {
        pb.CARD_KIND_SAILBOAT: 4,
        pb.CARD_KIND_BOTTLE: 4,
        pb.CARD_KIND_SLEEPING_PIRATE: 4,
        pb.CARD_KIND_PARROT: 4,
    }
    for kind in (pb.CARD_KIND_SAILBOAT, pb.CARD_KIND_BOTTLE, pb.CARD_KIND_SLEEPING_PIRATE):
        assert sorted(c.colour for c in DECK if c.kind == kind) == sorted(COLOURS)  # one per colour
    assert all(c.colour == pb.COLOUR_UNSPECIFIED for c in DECK if c.is_parrot)


def test_what_fits_on_what() -> None:
    top, none = pirate(FLOWER, 5), pb.COLOUR_UNSPECIFIED
    assert fits(pirate(FLOWER, 9), top, none)  # same colour
    assert fits(pirate(STAR, 5), top, none)  # same pirate
    assert fits(bottle(FLOWER), top, none)  # a special of the same colour
    assert fits(PARROT, top, none)  # a Parrot on anything...
    assert not fits(PARROT, PARROT, FLOWER)  # ...but a Parrot
    assert not fits(pirate(STAR, 4), top, none)
    assert not fits(bottle(STAR), top, none)
    assert fits(sailboat(STAR), sailboat(FLOWER), none)  # the same illustration
    assert not fits(sailboat(STAR), bottle(FLOWER), none)
    assert not fits(pirate(STAR, 0), bottle(FLOWER), none)  # pirates and specials share no value
    assert fits(pirate(CIRCLE, 2), PARROT, CIRCLE)  # on a Parrot: the colour it asked for
    assert fits(sleeping(CIRCLE), PARROT, CIRCLE)
    assert not fits(pirate(FLOWER, 2), PARROT, CIRCLE)


# --- setting up -------------------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 3, 4])
def test_setup_deals_five_secret_cards_each_and_turns_up_a_pirate_card(count: int) -> None:
    state = new_state(count, seed=count)
    assert [len(hand) for hand in state.hands] == [5] * count
    assert len(state.discard) == 1 and state.top.is_pirate
    assert len(state.draw_pile) == 52 - 5 * count - 1
    assert inventory(state) == Counter(DECK)
    assert state.phase == pb.PHASE_PLAY and state.round == 1 and state.ships == (0,) * count


def test_pirates_is_for_2_to_4_players() -> None:
    for count in (1, 5):
        with pytest.raises(InvalidSetup):
            ENGINE.resolve_options(pb.Options(), seats(count))
    for count in (2, 3, 4):
        assert ENGINE.resolve_options(pb.Options(), seats(count)).first_seat == 0
    assert (ENGINE.min_seats, ENGINE.max_seats) == (2, 4)


class Rigged(random.Random):
    """A random source whose shuffle puts the cards in a given order."""

    def __init__(self, order: list[Card]) -> None:
        super().__init__(0)
        self.order = order

    def shuffle(self, x: list[Card]) -> None:  # type: ignore[override]
        assert sorted(x) == sorted(self.order)
        x[:] = self.order


def test_specials_turned_up_go_under_the_draw_pile_until_a_pirate_card_shows() -> None:
    specials = [bottle(STAR), PARROT, sailboat(FLOWER)]
    hands = [pirate(FLOWER, v) for v in range(1, 6)] + [pirate(SQUARE, v) for v in range(1, 6)]
    start = pirate(CIRCLE, 7)
    rest = sorted((Counter(DECK) - Counter([*hands, *specials, start])).elements())  # every other card
    order = hands + specials + [start] + rest
    dealt = deal_round(DECK, 2, 1, 0, False, Rigged(order)).round_dealt
    assert Card.from_proto(dealt.discard) == start
    assert [Card.from_proto(c) for c in dealt.turned_under] == specials
    pile = [Card.from_proto(c) for c in dealt.draw_pile]
    assert pile[-3:] == specials and pile[:-3] == rest
    assert dealt.draw_pile_size == len(pile) == 52 - 11


def test_the_player_who_last_bathed_in_the_sea_starts() -> None:
    assert to_act(new_state(3)) == 0  # by default seat 0
    assert to_act(new_state(3, pb.Options(first_seat=2))) == 2


@pytest.mark.parametrize(
    "options",
    [
        pb.Options(first_seat=3),
        pb.Options(island_distance=21),
        pb.Options(removed_specials=[pb.CARD_KIND_PIRATE]),
        pb.Options(removed_specials=[pb.CARD_KIND_BOTTLE, pb.CARD_KIND_BOTTLE]),
        pb.Options(bottle_chain=7),  # type: ignore[arg-type]
        pb.Options(bottle_follow_up=7),  # type: ignore[arg-type]
        pb.Options(next_round_starter=7),  # type: ignore[arg-type]
    ],
)
def test_invalid_options_are_refused(options: pb.Options) -> None:
    with pytest.raises(InvalidSetup):
        ENGINE.resolve_options(options, seats(3))


def test_options_get_their_defaults() -> None:
    resolved = ENGINE.resolve_options(pb.Options(), seats(2))
    assert resolved.first_seat == 0 and resolved.HasField("first_seat")
    assert resolved.island_distance == DEFAULT_ISLAND_DISTANCE == 5
    assert resolved.bottle_chain == pb.BOTTLE_CHAIN_PASS
    assert resolved.bottle_follow_up == pb.BOTTLE_FOLLOW_UP_DRAWN
    assert resolved.next_round_starter == pb.NEXT_ROUND_STARTER_AFTER_WINNER
    assert not (resolved.ohe_variant or resolved.open_hands or resolved.must_play)


def test_removed_special_kinds_stay_in_the_box() -> None:
    options = pb.Options(removed_specials=[pb.CARD_KIND_PARROT, pb.CARD_KIND_BOTTLE])
    state = new_state(4, options)
    assert len(state.removed) == 8
    assert {c.kind for c in state.removed} == {pb.CARD_KIND_PARROT, pb.CARD_KIND_BOTTLE}
    in_play = [c for hand in state.hands for c in hand] + list(state.draw_pile) + list(state.discard)
    assert len(in_play) == 44
    assert not any(c.kind in (pb.CARD_KIND_PARROT, pb.CARD_KIND_BOTTLE) for c in in_play)
    assert inventory(state) == Counter(DECK)


# --- laying and drawing -----------------------------------------------------------------


def test_a_card_of_the_same_colour_is_laid_on_top_and_the_turn_passes_clockwise() -> None:
    hands = [[pirate(FLOWER, 2), pirate(STAR, 8)], [pirate(FLOWER, 1)], [pirate(FLOWER, 3)]]
    state = table(hands, pirate(FLOWER, 5))
    state, events = run(state, 0, play(pirate(FLOWER, 2)))
    assert kinds(events) == ["card_played", "turn_passed"]
    assert events[0].card_played == pb.CardPlayed(seat=0, card=pirate(FLOWER, 2).to_proto(), hand_size=1)
    assert state.top == pirate(FLOWER, 2) and state.hands[0] == (pirate(STAR, 8),)
    assert len(state.discard) == 2 and to_act(state) == 1
    state, _ = run(state, 1, DRAW)
    state, _ = run(state, 1, END_TURN)
    assert to_act(state) == 2
    state, _ = run(state, 2, DRAW)
    state, _ = run(state, 2, END_TURN)
    assert to_act(state) == 0  # around the table, clockwise


def test_the_same_pirate_in_another_colour_fits() -> None:
    state = table([[pirate(STAR, 5), pirate(STAR, 6)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5))
    assert refused(ENGINE, state, 0, play(pirate(STAR, 6))) == "does_not_fit"
    state, _ = run(state, 0, play(pirate(STAR, 5)))
    assert state.top == pirate(STAR, 5) and to_act(state) == 1


def test_a_card_that_fits_nothing_is_refused_and_changes_nothing() -> None:
    state = table([[pirate(STAR, 6), bottle(SQUARE)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5))
    assert refused(ENGINE, state, 0, play(pirate(STAR, 6))) == "does_not_fit"
    assert refused(ENGINE, state, 0, play(bottle(SQUARE))) == "does_not_fit"
    assert refused(ENGINE, state, 0, play(pirate(FLOWER, 1))) == "not_in_hand"
    assert refused(ENGINE, state, 1, play(pirate(SQUARE, 1))) == "not_your_turn"


def test_without_a_card_that_fits_draw_one_and_lay_it_at_once_if_it_fits() -> None:
    state = table(
        [[pirate(STAR, 6), pirate(STAR, 7)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5), pile=[pirate(FLOWER, 9)]
    )
    state, events = run(state, 0, DRAW)
    assert kinds(events) == ["cards_drawn"] and events[0].cards_drawn.reason == pb.DRAW_REASON_TURN
    assert state.phase == pb.PHASE_DRAWN and state.drawn == (pirate(FLOWER, 9),)
    assert pirate(FLOWER, 9) in state.hands[0] and len(state.hands[0]) == 3
    assert to_act(state) == 0  # still the drawer's turn
    assert refused(ENGINE, state, 0, DRAW) == "already_drawn"
    state, events = run(state, 0, play(pirate(FLOWER, 9)))
    assert kinds(events) == ["card_played", "turn_passed"] and to_act(state) == 1


def test_a_drawn_card_that_does_not_fit_is_kept_and_the_turn_ends() -> None:
    state = table(
        [[pirate(STAR, 6), pirate(STAR, 7)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5), pile=[pirate(CIRCLE, 9)]
    )
    state, _ = run(state, 0, DRAW)
    assert ENGINE.legal_commands(state, 0) == [END_TURN]
    assert refused(ENGINE, state, 0, play(pirate(CIRCLE, 9))) == "does_not_fit"
    state, events = run(state, 0, END_TURN)
    assert kinds(events) == ["turn_passed"]
    assert len(state.hands[0]) == 3 and to_act(state) == 1 and state.phase == pb.PHASE_PLAY


def test_after_drawing_only_the_drawn_card_may_be_laid() -> None:
    state = table(
        [[pirate(FLOWER, 6), pirate(STAR, 7)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5), pile=[pirate(FLOWER, 9)]
    )
    state, _ = run(state, 0, DRAW)  # allowed although the Flower 6 fits (must_play is off)
    assert refused(ENGINE, state, 0, play(pirate(FLOWER, 6))) == "only_drawn_cards"
    assert play(pirate(FLOWER, 6)) not in ENGINE.legal_commands(state, 0)
    assert ENGINE.legal_commands(state, 0) == [play(pirate(FLOWER, 9)), END_TURN]


def test_ending_a_turn_without_drawing_is_refused() -> None:
    state = table([[pirate(STAR, 6)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5))
    assert refused(ENGINE, state, 0, END_TURN) == "nothing_drawn"
    assert refused(ENGINE, state, 0, pb.Command()) == "unknown_command"


def test_must_play_forbids_drawing_when_a_card_fits() -> None:
    options = pb.Options(must_play=True)
    state = table(
        [[pirate(FLOWER, 6), pirate(STAR, 7)], [pirate(SQUARE, 1)]],
        pirate(FLOWER, 5),
        pile=[pirate(STAR, 9)],
        options=options,
    )
    assert refused(ENGINE, state, 0, DRAW) == "must_play"
    assert ENGINE.legal_commands(state, 0) == [play(pirate(FLOWER, 6))]
    state, _ = run(state, 0, play(pirate(FLOWER, 6)))
    state, _ = run(state, 1, DRAW)  # nothing fits: drawing is allowed; the Star 9 does not fit either
    assert ENGINE.legal_commands(state, 1) == [END_TURN]


def test_must_play_makes_laying_a_fitting_drawn_card_compulsory() -> None:
    options = pb.Options(must_play=True)
    state = table(
        [[pirate(STAR, 7)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5), pile=[pirate(FLOWER, 9)], options=options
    )
    state, _ = run(state, 0, DRAW)
    assert refused(ENGINE, state, 0, END_TURN) == "must_play"
    assert ENGINE.legal_commands(state, 0) == [play(pirate(FLOWER, 9))]


# --- the draw pile runs out ------------------------------------------------------------


def test_an_exhausted_draw_pile_is_rebuilt_from_the_shuffled_discard_pile_keeping_its_top() -> None:
    state = table([[pirate(STAR, 6)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5), rest="discard")
    assert state.draw_pile == ()
    under = state.discard[:-1]
    state, events = run(state, 0, DRAW, seed=3)
    assert kinds(events) == ["draw_pile_rebuilt", "cards_drawn"]
    rebuilt = events[0].draw_pile_rebuilt
    assert rebuilt.size == len(under) == rebuilt.draw_pile_size
    shuffled = [Card.from_proto(c) for c in rebuilt.cards]
    assert sorted(shuffled) == sorted(under) and shuffled != list(under)
    assert state.discard == (pirate(FLOWER, 5),)  # the top card stayed
    assert state.drawn == (shuffled[0],) and state.draw_pile == tuple(shuffled[1:])
    assert inventory(state) == Counter(DECK)


def test_a_penalty_longer_than_the_draw_pile_draws_its_last_cards_then_from_the_rebuilt_pile() -> None:
    hands = [[pirate(STAR, 6), bottle(FLOWER)], [pirate(SQUARE, 1)]]
    state = table(hands, pirate(FLOWER, 5), pile=[pirate(CIRCLE, 2)], rest="discard")
    state, _ = run(state, 0, play(bottle(FLOWER)))
    assert state.draw_pile == (pirate(CIRCLE, 2),)
    state, events = run(state, 1, DRAW, seed=5)
    assert kinds(events) == ["draw_pile_rebuilt", "cards_drawn"]
    drawn = [Card.from_proto(c) for c in events[1].cards_drawn.cards]
    assert drawn[0] == pirate(CIRCLE, 2)  # the old pile's last card first
    assert drawn[1] == Card.from_proto(events[0].draw_pile_rebuilt.cards[0])
    assert inventory(state) == Counter(DECK)


def test_when_nothing_is_left_to_draw_drawing_passes_the_turn() -> None:
    state = table([[pirate(STAR, 6)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5), rest=1)
    assert state.draw_pile == () and len(state.discard) == 1
    state, events = run(state, 0, DRAW)
    assert kinds(events) == ["cards_drawn", "turn_passed"]
    assert events[0].cards_drawn.count == 0 and events[0].cards_drawn.wanted == 1
    assert to_act(state) == 1 and state.hands[0] == (pirate(STAR, 6),)


def test_a_round_does_not_end_while_every_hand_holds_cards() -> None:
    state = table([[pirate(FLOWER, 6), pirate(STAR, 7)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5))
    state, events = run(state, 0, play(pirate(FLOWER, 6)))
    assert kinds(events) == ["card_played", "turn_passed"]
    assert state.round == 1 and state.ships == (0, 0) and not ENGINE.status(state).finished


def test_a_draw_that_finds_nothing_is_no_way_to_pass_while_a_card_fits() -> None:
    """With no card left to draw anywhere, a player who can lay must lay: otherwise
    two players could pass for ever (even with must_play off)."""
    state = table([[pirate(FLOWER, 6), pirate(STAR, 6)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5), rest=1)
    assert state.draw_pile == () and len(state.discard) == 1
    assert refused(ENGINE, state, 0, DRAW) == "nothing_to_draw"
    assert ENGINE.legal_commands(state, 0) == [play(pirate(FLOWER, 6))]
    state, _ = run(bottle_table(pile=[]), 0, play(bottle(FLOWER)))  # facing a Bottle, holding one
    state = replace(
        state,
        draw_pile=(),
        discard=state.discard[-1:],
        hands=(*state.hands[:2], state.hands[2] + state.discard[:-1] + state.draw_pile),
    )
    assert refused(ENGINE, state, 1, DRAW) == "nothing_to_draw"
    assert ENGINE.legal_commands(state, 1) == [play(bottle(STAR))]


def exhausted_table(rebuilds: int, hands: list[list[Card]], options: pb.Options | None = None) -> PiratesState:
    """A round whose draw pile is empty and was rebuilt `rebuilds` times: every other
    card lies under the top of the discard pile."""
    state = table(hands, pirate(FLOWER, 5), rest="discard", options=options)
    return replace(state, rebuilds=rebuilds)


def test_the_draw_pile_is_rebuilt_as_often_as_a_round_allows_then_the_round_ends() -> None:
    hands = [[pirate(STAR, 6), pirate(STAR, 7)], [pirate(SQUARE, 1)], [pirate(CIRCLE, 2), pirate(CIRCLE, 3)]]
    state, events = run(exhausted_table(2, hands), 0, DRAW)  # the default allows 3 rebuilds
    assert kinds(events) == ["draw_pile_rebuilt", "cards_drawn"] and state.rebuilds == 3
    assert ENGINE.view(state, Viewer.spectator()).rebuilds == 3
    state, events = run(exhausted_table(3, hands), 0, DRAW)
    assert kinds(events) == ["round_won", "round_dealt"]
    won = events[0].round_won
    assert won.end == pb.ROUND_END_PILE_EXHAUSTED and won.seat == 1  # the fewest cards
    assert list(won.hand_sizes) == [2, 1, 2] and list(won.ships) == [0, 1, 0]
    assert state.round == 2 and state.rebuilds == 0
    state, events = run(exhausted_table(1, hands, pb.Options(rebuilds_per_round=1)), 0, DRAW)
    assert events[0].round_won.end == pb.ROUND_END_PILE_EXHAUSTED


@pytest.mark.parametrize(("direction", "winner"), [(1, 1), (-1, 2)])
def test_on_equal_fewest_cards_the_first_in_the_direction_of_play_from_the_drawer_wins(
    direction: int, winner: int
) -> None:
    hands = [[pirate(STAR, 6), pirate(STAR, 7)], [pirate(SQUARE, 1)], [pirate(CIRCLE, 2)]]
    state = replace(exhausted_table(3, hands), direction=direction)
    _, events = run(state, 0, DRAW)
    assert events[0].round_won.seat == winner
    _, events = run(replace(state, active_seat=1), 1, DRAW)
    assert events[0].round_won.seat == 1  # the drawer first, when it holds as few as any


def test_a_bottle_penalty_or_an_ohe_penalty_may_end_an_exhausted_round_too() -> None:
    hands = [[bottle(FLOWER), pirate(STAR, 7)], [pirate(SQUARE, 1), pirate(SQUARE, 2)], [pirate(CIRCLE, 2)]]
    state, _ = run(exhausted_table(3, hands), 0, play(bottle(FLOWER)))
    _, events = run(state, 1, DRAW)
    assert kinds(events) == ["round_won", "round_dealt"] and events[0].round_won.seat == 2
    ohe = exhausted_table(3, [[pirate(FLOWER, 6), pirate(STAR, 7)], [pirate(SQUARE, 1)]], pb.Options(ohe_variant=True))
    _, events = run(ohe, 0, play(pirate(FLOWER, 6)))  # down to one card without "ohé!"
    assert kinds(events) == ["card_played", "round_won", "round_dealt"]
    assert events[1].round_won.end == pb.ROUND_END_PILE_EXHAUSTED and list(events[1].round_won.hand_sizes) == [1, 1]


def test_rebuilds_per_round_is_1_to_20() -> None:
    assert ENGINE.resolve_options(pb.Options(), seats(2)).rebuilds_per_round == 3
    with pytest.raises(InvalidSetup):
        ENGINE.resolve_options(pb.Options(rebuilds_per_round=21), seats(2))


# --- the Sailboat ----------------------------------------------------------------------


def test_a_sailboat_reverses_the_direction_with_three_players() -> None:
    hands = [[pirate(STAR, 1)], [sailboat(FLOWER), pirate(FLOWER, 2)], [pirate(STAR, 3)]]
    state = table(hands, pirate(FLOWER, 5), active=1)
    state, events = run(state, 1, play(sailboat(FLOWER)))
    passed = events[-1].turn_passed
    assert passed.direction == pb.DIRECTION_COUNTERCLOCKWISE and not passed.HasField("skipped_seat")
    assert to_act(state) == 0 and state.direction == COUNTERCLOCKWISE
    state, _ = run(state, 0, DRAW)
    state, _ = run(state, 0, END_TURN)
    assert to_act(state) == 2  # 1 -> 0 -> 2: counterclockwise, wrapping around


def test_sailboats_turn_the_direction_back_and_forth_with_four_players() -> None:
    hands = [
        [sailboat(FLOWER), pirate(STAR, 1)],
        [pirate(STAR, 2)],
        [pirate(STAR, 4)],
        [sailboat(STAR), pirate(STAR, 3)],
    ]
    state = table(hands, pirate(FLOWER, 5))
    state, _ = run(state, 0, play(sailboat(FLOWER)))
    assert to_act(state) == 3  # 0 -> 3, counterclockwise
    state, _ = run(state, 3, play(sailboat(STAR)))  # a Sailboat on a Sailboat: the same illustration
    assert to_act(state) == 0 and state.direction == 1  # clockwise again: back to seat 0
    state, _ = run(state, 0, play(pirate(STAR, 1)))
    assert to_act(state) == 1


def test_a_sailboat_with_two_players_makes_the_other_miss_a_turn() -> None:
    state = table([[sailboat(FLOWER), pirate(FLOWER, 2)], [pirate(STAR, 3)]], pirate(FLOWER, 5))
    state, events = run(state, 0, play(sailboat(FLOWER)))
    assert events[-1].turn_passed.skipped_seat == 1
    assert to_act(state) == 0
    state, _ = run(state, 0, play(pirate(FLOWER, 2)))
    assert to_act(state) == 1


# --- the Sleeping pirate ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "seat", "direction", "skipped", "next_seat"),
    [
        (3, 0, 1, 1, 2),
        (4, 1, 1, 2, 3),
        (4, 3, 1, 0, 1),  # wrapping around the table
        (4, 2, 1, 3, 0),
        (3, 2, 1, 0, 1),
        (4, 0, -1, 3, 2),  # counterclockwise, wrapping the other way
        (3, 1, -1, 0, 2),
        (2, 0, 1, 1, 0),  # two players: play again
        (2, 1, 1, 0, 1),
    ],
)
def test_a_sleeping_pirate_makes_the_next_player_miss_a_turn(
    count: int, seat: int, direction: int, skipped: int, next_seat: int
) -> None:
    hands: list[list[Card]] = [[pirate(STAR, s + 1)] for s in range(count)]
    hands[seat] = [sleeping(FLOWER), pirate(SQUARE, 9)]
    state = table(hands, pirate(FLOWER, 5), active=seat, direction=direction)
    state, events = run(state, seat, play(sleeping(FLOWER)))
    passed = events[-1].turn_passed
    assert passed.skipped_seat == skipped and passed.next_seat == next_seat
    assert to_act(state) == next_seat and state.direction == direction


# --- the Bottle --------------------------------------------------------------------------


def bottle_table(
    options: pb.Options | None = None, pile: list[Card] | None = None, second: list[Card] | None = None
) -> PiratesState:
    hands = [
        [bottle(FLOWER), pirate(STAR, 1), pirate(STAR, 2)],
        second or [pirate(CIRCLE, 1), pirate(SQUARE, 7), bottle(STAR)],
        [bottle(SQUARE), pirate(STAR, 3)],
    ]
    return table(hands, pirate(FLOWER, 5), pile=pile or [pirate(CIRCLE, 9), pirate(FLOWER, 8)], options=options)


def test_a_bottle_makes_the_next_player_draw_two_cards() -> None:
    state, events = run(bottle_table(), 0, play(bottle(FLOWER)))
    assert events[-1].turn_passed.draw_penalty == 2
    assert state.phase == pb.PHASE_BOTTLE and to_act(state) == 1
    assert refused(ENGINE, state, 1, play(pirate(CIRCLE, 1))) == "answer_the_bottle"
    assert refused(ENGINE, state, 1, END_TURN) == "nothing_drawn"
    state, events = run(state, 1, DRAW)
    drawn = events[0].cards_drawn
    assert drawn.reason == pb.DRAW_REASON_BOTTLE and drawn.count == drawn.wanted == 2
    assert len(state.hands[1]) == 5 and state.draw_penalty == 0


def test_after_the_penalty_one_drawn_card_may_be_laid_if_it_fits() -> None:
    state, _ = run(bottle_table(), 0, play(bottle(FLOWER)))
    state, _ = run(state, 1, DRAW)  # Circle 9 and Flower 8
    assert state.phase == pb.PHASE_DRAWN
    assert ENGINE.legal_commands(state, 1) == [play(pirate(FLOWER, 8)), END_TURN]
    assert refused(ENGINE, state, 1, play(bottle(STAR))) == "only_drawn_cards"  # a Bottle on a Bottle, but not drawn
    state, _ = run(state, 1, play(pirate(FLOWER, 8)))
    assert to_act(state) == 2 and state.phase == pb.PHASE_PLAY


def test_with_follow_up_hand_any_card_of_the_hand_may_be_laid_after_the_penalty() -> None:
    state, _ = run(bottle_table(pb.Options(bottle_follow_up=pb.BOTTLE_FOLLOW_UP_HAND)), 0, play(bottle(FLOWER)))
    state, _ = run(state, 1, DRAW)
    legal = ENGINE.legal_commands(state, 1)
    assert play(bottle(STAR)) in legal and play(pirate(FLOWER, 8)) in legal
    assert play(pirate(CIRCLE, 1)) not in legal  # it does not fit
    state, events = run(state, 1, play(bottle(STAR)))
    assert events[-1].turn_passed.draw_penalty == 2 and to_act(state) == 2


def test_with_follow_up_none_the_penalty_ends_the_turn() -> None:
    state, _ = run(bottle_table(pb.Options(bottle_follow_up=pb.BOTTLE_FOLLOW_UP_NONE)), 0, play(bottle(FLOWER)))
    state, events = run(state, 1, DRAW)
    assert kinds(events) == ["cards_drawn", "turn_passed"]
    assert to_act(state) == 2 and len(state.hands[1]) == 5


def test_a_bottle_may_be_answered_with_a_bottle_and_the_penalty_passes_on() -> None:
    state, _ = run(bottle_table(), 0, play(bottle(FLOWER)))
    assert refused(ENGINE, state, 1, play(PARROT)) == "not_in_hand"
    state, events = run(state, 1, play(bottle(STAR)))  # answering: no card drawn
    assert kinds(events) == ["card_played", "turn_passed"]
    assert events[-1].turn_passed.draw_penalty == 2  # BOTTLE_CHAIN_PASS: still two
    assert len(state.hands[1]) == 2 and to_act(state) == 2
    state, events = run(state, 2, play(bottle(SQUARE)))  # a chain of three
    assert events[-1].turn_passed.draw_penalty == 2 and to_act(state) == 0
    state, events = run(state, 0, DRAW)
    assert events[-1].cards_drawn.count == 2


def test_with_bottle_chain_stack_the_penalties_add_up() -> None:
    state, _ = run(bottle_table(pb.Options(bottle_chain=pb.BOTTLE_CHAIN_STACK)), 0, play(bottle(FLOWER)))
    state, events = run(state, 1, play(bottle(STAR)))
    assert events[-1].turn_passed.draw_penalty == 4
    state, events = run(state, 2, play(bottle(SQUARE)))
    assert events[-1].turn_passed.draw_penalty == 6
    state, events = run(state, 0, DRAW)
    assert events[-1].cards_drawn.count == 6 and len(state.hands[0]) == 8


def test_only_a_bottle_answers_a_bottle() -> None:
    state, _ = run(
        bottle_table(second=[PARROT, pirate(FLOWER, 1), sailboat(FLOWER)]),
        0,
        play(bottle(FLOWER)),
    )
    for card in (PARROT, pirate(FLOWER, 1), sailboat(FLOWER)):
        announce = FLOWER if card == PARROT else pb.COLOUR_UNSPECIFIED
        assert refused(ENGINE, state, 1, play(card, announce)) == "answer_the_bottle"
    assert ENGINE.legal_commands(state, 1) == [DRAW]


def test_answering_a_bottle_is_a_choice_unless_must_answer_bottle() -> None:
    """« il peut alors la poser »: must_play (lay a card when you can) does not make
    the answer compulsory; must_answer_bottle does."""
    state, _ = run(bottle_table(pb.Options(must_play=True)), 0, play(bottle(FLOWER)))
    assert ENGINE.legal_commands(state, 1) == [play(bottle(STAR)), DRAW]
    state, _ = run(bottle_table(pb.Options(must_answer_bottle=True)), 0, play(bottle(FLOWER)))
    assert refused(ENGINE, state, 1, DRAW) == "must_answer_bottle"
    assert ENGINE.legal_commands(state, 1) == [play(bottle(STAR))]


def test_laying_a_card_drawn_after_the_penalty_is_a_choice_unless_must_lay_after_bottle() -> None:
    """« Elle peut se défausser d'une de ces cartes »: laying the Flower 8 just drawn
    is a choice, even with must_play; must_lay_after_bottle makes it compulsory."""
    for options in (pb.Options(), pb.Options(must_play=True)):
        state, _ = run(bottle_table(options), 0, play(bottle(FLOWER)))
        state, _ = run(state, 1, DRAW)  # Circle 9 and Flower 8
        assert ENGINE.legal_commands(state, 1) == [play(pirate(FLOWER, 8)), END_TURN]
    state, _ = run(bottle_table(pb.Options(must_lay_after_bottle=True)), 0, play(bottle(FLOWER)))
    assert DRAW in ENGINE.legal_commands(state, 1)  # answering with the Star Bottle stays a choice
    state, _ = run(state, 1, DRAW)
    assert refused(ENGINE, state, 1, END_TURN) == "must_lay_after_bottle"
    assert ENGINE.legal_commands(state, 1) == [play(pirate(FLOWER, 8))]


# --- the Parrot --------------------------------------------------------------------------


def parrot_table() -> PiratesState:
    hands = [
        [PARROT, pirate(STAR, 1), pirate(STAR, 2)],
        [PARROT, pirate(CIRCLE, 5), pirate(STAR, 7), sleeping(STAR)],
        [pirate(STAR, 3), pirate(SQUARE, 2)],
    ]
    return table(hands, pirate(FLOWER, 5), pile=[pirate(SQUARE, 9)])


UNKNOWN = cast(pb.Colour.ValueType, 9)


def test_a_parrot_goes_on_any_card_and_announces_a_colour() -> None:
    state = parrot_table()
    assert refused(ENGINE, state, 0, play(PARROT)) == "announce_a_colour"
    assert refused(ENGINE, state, 0, play(PARROT, UNKNOWN)) == "announce_a_colour"
    assert [c.play.announce for c in ENGINE.legal_commands(state, 0) if c.play.card.kind == pb.CARD_KIND_PARROT] == [
        *COLOURS
    ]
    state, events = run(state, 0, play(PARROT, STAR))
    assert events[0].card_played.announced == STAR
    assert state.top == PARROT and state.announced == STAR and to_act(state) == 1


def test_only_a_parrot_announces_a_colour() -> None:
    state = table([[pirate(FLOWER, 1)], [pirate(STAR, 3)]], pirate(FLOWER, 5))
    assert refused(ENGINE, state, 0, play(pirate(FLOWER, 1), STAR)) == "nothing_to_announce"


def test_the_next_player_must_follow_the_announced_colour_or_draw() -> None:
    state, _ = run(parrot_table(), 0, play(PARROT, STAR))
    assert refused(ENGINE, state, 1, play(PARROT, FLOWER)) == "parrot_on_parrot"
    assert refused(ENGINE, state, 1, play(pirate(CIRCLE, 5))) == "follow_the_parrot"
    legal = ENGINE.legal_commands(state, 1)
    assert legal == [play(pirate(STAR, 7)), play(sleeping(STAR)), DRAW]  # any card of the colour
    state, _ = run(state, 1, play(pirate(STAR, 7)))
    assert state.announced == pb.COLOUR_UNSPECIFIED and to_act(state) == 2


def test_the_announced_colour_holds_while_the_parrot_stays_on_top() -> None:
    state, _ = run(parrot_table(), 0, play(PARROT, SQUARE))
    state, _ = run(state, 1, DRAW)  # the Square 9 comes: it follows the Parrot
    assert ENGINE.legal_commands(state, 1) == [play(pirate(SQUARE, 9)), END_TURN]
    state, _ = run(state, 1, END_TURN)
    assert state.announced == SQUARE
    assert refused(ENGINE, state, 2, play(pirate(STAR, 3))) == "follow_the_parrot"
    state, _ = run(state, 2, play(pirate(SQUARE, 2)))
    assert state.announced == pb.COLOUR_UNSPECIFIED


def test_a_parrot_may_ask_for_the_colour_of_the_card_under_it() -> None:
    state, _ = run(parrot_table(), 0, play(PARROT, FLOWER))
    assert state.announced == FLOWER


def test_a_parrot_goes_on_specials_too() -> None:
    state = table([[pirate(STAR, 1)], [PARROT, pirate(CIRCLE, 1)]], bottle(FLOWER), active=1)
    state, _ = run(state, 1, play(PARROT, CIRCLE))
    assert state.top == PARROT


# --- rounds, ships and the island ----------------------------------------------------


def test_laying_the_last_card_wins_the_round_and_sails_the_ship_one_space() -> None:
    state = table([[pirate(STAR, 6)], [pirate(FLOWER, 1), pirate(STAR, 1)], [pirate(SQUARE, 2)]], pirate(FLOWER, 6))
    state, events = run(state, 0, play(pirate(STAR, 6)))
    assert kinds(events) == ["card_played", "round_won", "round_dealt"]
    assert events[1].round_won.seat == 0 and list(events[1].round_won.ships) == [1, 0, 0]
    assert state.ships == (1, 0, 0) and state.round == 2


def test_the_next_round_reshuffles_every_card_and_deals_five_again() -> None:
    state = table([[pirate(STAR, 6)], [pirate(FLOWER, 1), pirate(STAR, 1)], [pirate(SQUARE, 2)]], pirate(FLOWER, 6))
    state, events = run(state, 0, play(pirate(STAR, 6)))
    dealt = events[-1].round_dealt
    assert dealt.round == 2
    assert [len(h) for h in state.hands] == [5, 5, 5] and state.top.is_pirate
    assert len(state.draw_pile) == 52 - 16 and inventory(state) == Counter(DECK)
    assert state.direction == 1 and state.announced == 0 and state.draw_penalty == 0


def test_a_round_may_end_on_a_special_card_whose_effect_is_then_void() -> None:
    state = table([[bottle(FLOWER)], [pirate(FLOWER, 1), pirate(STAR, 1)]], pirate(FLOWER, 6))
    state, events = run(state, 0, play(bottle(FLOWER)))
    assert kinds(events) == ["card_played", "round_won", "round_dealt"]
    assert state.phase == pb.PHASE_PLAY and state.draw_penalty == 0
    state = table([[PARROT], [pirate(FLOWER, 1), pirate(STAR, 1)]], pirate(FLOWER, 6))
    state, events = run(state, 0, play(PARROT, STAR))
    assert kinds(events)[1] == "round_won" and state.announced == 0


@pytest.mark.parametrize(
    ("rule", "first_seat", "winner", "starter"),
    [
        (pb.NEXT_ROUND_STARTER_AFTER_WINNER, 0, 1, 2),
        (pb.NEXT_ROUND_STARTER_AFTER_WINNER, 0, 2, 0),  # wrapping around
        (pb.NEXT_ROUND_STARTER_WINNER, 0, 1, 1),
        (pb.NEXT_ROUND_STARTER_ROTATE, 2, 1, 0),
        (pb.NEXT_ROUND_STARTER_ROTATE, 0, 2, 1),
    ],
)
def test_who_starts_the_next_round(
    rule: pb.NextRoundStarter.ValueType, first_seat: int, winner: int, starter: int
) -> None:
    hands: list[list[Card]] = [[pirate(STAR, s + 1), pirate(SQUARE, s + 1)] for s in range(3)]
    hands[winner] = [pirate(FLOWER, 1)]
    options = pb.Options(next_round_starter=rule)
    state = replace(table(hands, pirate(FLOWER, 6), active=winner, options=options), round_first_seat=first_seat)
    state, events = run(state, winner, play(pirate(FLOWER, 1)))
    assert events[-1].round_dealt.first_seat == starter and to_act(state) == starter


def test_the_first_ship_to_reach_the_treasure_island_wins() -> None:
    options = pb.Options(island_distance=2)
    state = table(
        [[pirate(STAR, 6)], [pirate(FLOWER, 1), pirate(STAR, 1)]], pirate(FLOWER, 6), ships=[1, 1], options=options
    )
    state, events = run(state, 0, play(pirate(STAR, 6)))
    assert kinds(events) == ["card_played", "round_won", "game_won"]
    assert events[-1].game_won.seat == 0 and list(events[-1].game_won.ships) == [2, 1]
    status = ENGINE.status(state)
    assert status.finished and status.winners == (0,) and status.scores == (2, 1)
    assert status.summary == "{0} reaches the treasure island first, after 1 round."
    assert state.phase == pb.PHASE_FINISHED
    for seat in (0, 1):
        assert ENGINE.legal_commands(state, seat) == []
        assert refused(ENGINE, state, seat, DRAW) == "game_over"


def test_a_whole_game_runs_round_after_round_until_a_ship_lands() -> None:
    state = new_state(3, pb.Options(island_distance=2), seed=4)
    rng = random.Random(4)
    rounds_won = []
    while not ENGINE.status(state).finished:
        seat = to_act(state)
        state, events = run(state, seat, rng.choice(ENGINE.legal_commands(state, seat)), seed=rng.randrange(1000))
        rounds_won += [e.round_won.seat for e in events if e.HasField("round_won")]
        assert inventory(state) == Counter(DECK)
    winner = state.winner
    assert winner is not None and state.ships[winner] == 2
    assert sum(state.ships) == len(rounds_won) == state.round and rounds_won.count(winner) == 2


def test_nothing_happens_before_the_deal() -> None:
    assert refused(ENGINE, ENGINE.initial_state(), 0, DRAW) == "not_started"
    assert ENGINE.legal_commands(ENGINE.initial_state(), 0) == []
    assert ENGINE.status(ENGINE.initial_state()).to_act == ()


def test_unknown_seats_cannot_act() -> None:
    state = new_state(2)
    assert refused(ENGINE, state, 5, DRAW) == "not_your_turn"
    assert ENGINE.legal_commands(state, 5) == []
