"""What each viewer sees of a Pirates & Compagnie game, and what redacted events tell
(see seeds/pirates/RULES.md, "Hidden information")."""

from __future__ import annotations

import random

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import Viewer
from engines.pirates import ENGINE
from engines.pirates.cards import PARROT
from tests.pirates.helpers import (
    CIRCLE,
    DRAW,
    FLOWER,
    SQUARE,
    STAR,
    bottle,
    new_state,
    pirate,
    play,
    run,
    seats,
    table,
)


def test_each_seat_sees_its_own_hand_and_only_the_size_of_the_others() -> None:
    state = new_state(3, seed=5)
    for seat in range(3):
        view = ENGINE.view(state, Viewer.player(seat))
        assert [h.size for h in view.hands] == [5, 5, 5]
        assert [len(h.cards) for h in view.hands] == [5 if s == seat else 0 for s in range(3)]
        assert list(view.hands[seat].cards) == [c.to_proto() for c in state.hands[seat]]
        assert view.discard_top == state.top.to_proto() and view.discard_size == 1
        assert view.draw_pile_size == len(state.draw_pile) and not view.draw_pile
        assert not view.discard_pile
        assert view.active_seat == 0 and view.direction == pb.DIRECTION_CLOCKWISE
        assert view.island_distance == 5 and list(view.ships) == [0, 0, 0] and view.round == 1


def test_spectators_see_no_hand_and_the_admin_sees_everything() -> None:
    state = new_state(4, seed=6)
    public = ENGINE.view(state, Viewer.spectator())
    assert all(not h.cards for h in public.hands) and [h.size for h in public.hands] == [5] * 4
    admin = ENGINE.view(state, Viewer.admin())
    assert all(len(h.cards) == 5 for h in admin.hands)
    assert len(admin.draw_pile) == len(state.draw_pile) and len(admin.discard_pile) == 1


def test_the_announced_colour_and_the_bottle_penalty_are_public() -> None:
    state = table([[PARROT, pirate(STAR, 1)], [pirate(SQUARE, 3)]], pirate(FLOWER, 5))
    state, _ = run(state, 0, play(PARROT, CIRCLE))
    view = ENGINE.view(state, Viewer.spectator())
    assert view.announced == CIRCLE and view.discard_top == PARROT.to_proto()
    state = table([[bottle(FLOWER), pirate(STAR, 1)], [pirate(SQUARE, 3)]], pirate(FLOWER, 5))
    state, _ = run(state, 0, play(bottle(FLOWER)))
    view = ENGINE.view(state, Viewer.spectator())
    assert view.draw_penalty == 2 and view.phase == pb.PHASE_BOTTLE and view.active_seat == 1


def test_the_deal_is_redacted_for_everyone_but_the_admin() -> None:
    count = 3
    resolved = ENGINE.resolve_options(pb.Options(), seats(count))
    deal = ENGINE.setup(resolved, seats(count), random.Random(11))[1]
    original = pb.Event()
    original.CopyFrom(deal)
    assert ENGINE.redact(deal, Viewer.admin()) == deal
    for viewer in [Viewer.spectator(), *(Viewer.player(s) for s in range(count))]:
        redacted = ENGINE.redact(deal, viewer)
        assert redacted is not None
        dealt = redacted.round_dealt
        assert not dealt.draw_pile and dealt.draw_pile_size == deal.round_dealt.draw_pile_size
        assert dealt.discard == deal.round_dealt.discard and dealt.turned_under == deal.round_dealt.turned_under
        for hand in dealt.hands:
            assert hand.size == 5
            assert (len(hand.cards) == 5) == viewer.is_seat(hand.seat)
    assert deal == original  # redacting never changes the event


def test_a_rebuilt_draw_pile_keeps_its_order_secret() -> None:
    state = table([[pirate(STAR, 6)], [pirate(SQUARE, 1)]], pirate(FLOWER, 5), rest="discard")
    _, events = run(state, 0, DRAW)
    rebuilt = events[0]
    assert rebuilt.HasField("draw_pile_rebuilt") and rebuilt.draw_pile_rebuilt.cards
    for viewer in (Viewer.player(0), Viewer.player(1), Viewer.spectator()):
        redacted = ENGINE.redact(rebuilt, viewer)
        assert redacted is not None
        assert not redacted.draw_pile_rebuilt.cards
        assert redacted.draw_pile_rebuilt.size == rebuilt.draw_pile_rebuilt.size
    assert ENGINE.redact(rebuilt, Viewer.admin()) == rebuilt


def test_laid_cards_and_turns_are_public() -> None:
    state = table([[pirate(FLOWER, 1), pirate(STAR, 1)], [pirate(SQUARE, 3)]], pirate(FLOWER, 5))
    _, events = run(state, 0, play(pirate(FLOWER, 1)))
    for event in events:
        assert ENGINE.redact(event, Viewer.spectator()) == event
