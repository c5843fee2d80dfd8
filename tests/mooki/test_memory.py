"""The memory rule (« La collection de Mookies et la mémoire »), at the engine: a past
event or view read again during the game shows only the faces the table shows now
(engines/mooki/memory.py); live events still show what everybody saw; after the game,
for the admin and with `open_history`, everything is open. A two-worlds property
checks that a face out of sight now never comes back through `recall` or
`recall_view`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import cast

from google.protobuf.message import Message
from hypothesis import given
from hypothesis import strategies as st
from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import SeatInfo, Viewer, fold
from engines.mooki import ENGINE
from engines.mooki.cards import CARDS, FAMILIES, SPIDER
from engines.mooki.state import MookiState, PileCard
from tests.mooki.helpers import deal_event, draw, legendary, mooki, oriented, place
from tests.mooki.test_properties import SPEC
from tests.support.engine_properties import check_random_game, viewers

SUN, MOON, FOSSIL, SEASHELL, LEAF = FAMILIES
CLEO, ROBIN = 0, 1


def french_example(options: pb.Options | None = None) -> tuple[list[MookiState], list[pb.Event]]:
    """The French guide's example turn: Cléo keeps the Legendary Leaf under a Fossil,
    Robin covers it with a Spider (a Sun Mooki underneath). The states after each
    event, and the events."""
    spider_sun, fossil_leaf = oriented(0, SPIDER), oriented(7, mooki(FOSSIL))
    rest = [c for c in range(36) if c not in (0, 7)]
    left = [spider_sun, *(oriented(c, CARDS[c][0]) for c in rest[:17])]
    right = [fossil_leaf, *(oriented(c, CARDS[c][0]) for c in rest[17:])]
    deal = deal_event([left, right], youngest_seat=CLEO)
    if options is not None:
        deal.game_started.options.MergeFrom(options)
    moves = [(CLEO, draw(1)), (CLEO, place(pb.SIDE_HIDDEN)), (ROBIN, draw(0)), (ROBIN, place(pb.SIDE_SHOWN))]
    return replay(deal, moves)


def test_a_card_covered_by_a_spider_is_read_back_as_a_card() -> None:
    states, events = french_example()
    now = states[-1]
    cleo = Viewer.player(CLEO)
    drew, kept = events[1].card_drawn, events[2].card_placed
    # As it happened, Cléo saw both faces and everyone saw her keep the Legendary Leaf.
    seen_by_robin, seen_by_cleo = ENGINE.redact(events[2], Viewer.player(ROBIN)), ENGINE.redact(events[1], cleo)
    assert seen_by_robin is not None and seen_by_robin.card_placed.face == legendary(LEAF).to_proto()
    assert seen_by_cleo is not None and seen_by_cleo.card_drawn.hidden == drew.hidden
    # Read again now that the Spider covers it: she must remember it, and so must Robin.
    for viewer in viewers(2):
        recalled_draw = ENGINE.recall(events[1], now, viewer)
        recalled_place = ENGINE.recall(events[2], now, viewer)
        assert recalled_draw is not None and recalled_place is not None
        assert not recalled_draw.card_drawn.HasField("shown") and not recalled_draw.card_drawn.HasField("hidden")
        assert not recalled_place.card_placed.HasField("face")
        assert not recalled_place.card_placed.HasField("other_face")
        assert recalled_place.card_placed.collection_seat == CLEO and recalled_place.card_placed.seat == CLEO
    assert kept.face == legendary(LEAF).to_proto()  # the stored event is untouched


def test_what_the_table_shows_now_is_read_back_as_it_is() -> None:
    states, events = french_example()
    now = states[-1]
    robin_draw = ENGINE.recall(events[3], now, Viewer.player(ROBIN))
    spider = ENGINE.recall(events[4], now, Viewer.spectator())
    assert robin_draw is not None and spider is not None
    # The Spider shows on Cléo's collection: its face is told; the Sun it hid is turned down.
    assert robin_draw.card_drawn.shown == SPIDER.to_proto() and not robin_draw.card_drawn.HasField("hidden")
    assert spider.card_placed.face == SPIDER.to_proto() and not spider.card_placed.HasField("other_face")
    # The faces showing on the piles at the deal: the Spider shows still, on Cléo's
    # collection; the Fossil lies face down under the Legendary Leaf.
    deal = ENGINE.recall(events[0], now, Viewer.spectator())
    assert deal is not None and deal.game_started.piles[0].top == SPIDER.to_proto()
    assert not deal.game_started.piles[1].HasField("top")
    # What Cléo's draw revealed on the right pile is still showing there.
    cleo_draw = ENGINE.recall(events[1], now, Viewer.spectator())
    assert cleo_draw is not None and cleo_draw.card_drawn.revealed == ENGINE.view(now, Viewer.spectator()).piles[1].top


def test_the_card_in_hand_shows_both_faces_to_its_holder_only() -> None:
    states, events = french_example()
    holding = states[1]  # Cléo holds the Fossil / Legendary Leaf card
    assert ENGINE.recall(events[1], holding, Viewer.player(CLEO)) == ENGINE.redact(events[1], Viewer.player(CLEO))
    assert ENGINE.recall(events[1], holding, Viewer.player(ROBIN)) == ENGINE.redact(events[1], Viewer.player(ROBIN))


def test_a_past_view_shows_only_the_faces_the_table_shows_now() -> None:
    states, _ = french_example()
    then, now = states[2], states[-1]  # then: the Legendary Leaf on top of Cléo's collection
    for viewer in viewers(2):
        seen_then = ENGINE.view(then, viewer)
        assert seen_then.collections[CLEO].top == legendary(LEAF).to_proto()
        recalled = ENGINE.recall_view(seen_then, then, now, viewer)
        assert not recalled.collections[CLEO].HasField("top") and recalled.collections[CLEO].size == 1
        assert recalled.piles[1].top == seen_then.piles[1].top  # still showing on the right pile
        assert seen_then.collections[CLEO].HasField("top")  # the view given is untouched
    holding = states[1]
    recalled = ENGINE.recall_view(ENGINE.view(holding, Viewer.player(CLEO)), holding, now, Viewer.player(CLEO))
    assert not recalled.drawn.HasField("shown") and not recalled.drawn.HasField("hidden")


def test_help_my_memory_keeps_the_history_open() -> None:
    states, events = french_example(pb.Options(open_history=True))
    now = states[-1]
    for viewer in viewers(2):
        for event in events:
            assert ENGINE.recall(event, now, viewer) == ENGINE.redact(event, viewer)
        assert ENGINE.recall_view(ENGINE.view(states[2], viewer), states[2], now, viewer) == ENGINE.view(
            states[2], viewer
        )


def test_the_admin_and_everyone_after_the_game_read_everything() -> None:
    states, events = french_example()
    for event in events:
        assert ENGINE.recall(event, states[-1], Viewer.admin()) == event
    played = check_random_game(SPEC, pb.Options(), [SeatInfo(), SeatInfo()], 5, every_step=False)
    over = played.states[-1]
    assert ENGINE.status(over).finished
    for viewer in viewers(2):
        for past in cast(list[pb.Event], played.events):
            assert ENGINE.recall(past, over, viewer) == ENGINE.redact(past, viewer)


# --- two worlds ------------------------------------------------------------------------


def out_of_sight(state: MookiState) -> dict[int, int | None]:
    """The cards none of whose faces the table shows in `state`, each with the side it
    was kept on (None: never drawn): the cards under a collection's top, and those under
    a pile's top."""
    cards: dict[int, int | None] = {}
    for collection in state.collections:
        for placed in collection[:-1]:
            cards[placed.card_id] = placed.side
    for pile in state.piles:
        for card in pile[1:]:
            cards[card.card_id] = None
    return cards


def swapped_world(deal: pb.Event, now: MookiState, rng: random.Random) -> tuple[pb.Event, int]:
    """World B: A's deal with cards out of sight now swapped in pairs, each lying so that
    the side it will be kept on goes to the same collection (a Spider for a Spider, a
    Mooki for a Mooki), so the same moves play the same game but for faces nobody sees now.
    Returns the deal and how many swaps changed it."""
    hidden = out_of_sight(now)
    world = pb.Event()
    world.CopyFrom(deal)
    where = {c.card_id: (p, i) for p, pile in enumerate(world.game_started.piles) for i, c in enumerate(pile.cards)}
    cards = sorted(hidden)
    rng.shuffle(cards)
    swaps = 0
    for first, second in zip(cards[::2], cards[1::2], strict=False):
        # `first` goes to where `second` lay, turned so that the side kept there goes alike.
        a, b = _lying(deal, where, first, hidden[second], second), _lying(deal, where, second, hidden[first], first)
        if a is None or b is None:
            continue
        (p1, i1), (p2, i2) = where[first], where[second]
        world.game_started.piles[p1].cards[i1].CopyFrom(b)
        world.game_started.piles[p2].cards[i2].CopyFrom(a)
        swaps += a != b
    for pile in world.game_started.piles:
        pile.top.CopyFrom(pile.cards[0].shown)
    return world, swaps


def _lying(
    deal: pb.Event, where: dict[int, tuple[int, int]], card_id: int, side: int | None, into: int
) -> pb.DealtCard | None:
    """Card `card_id` turned to lie in `into`'s place: with the face that place's card
    showed to the side that was kept there, of the same destination (None: it cannot)."""
    p, i = where[into]
    replaced = deal.game_started.piles[p].cards[i]
    first, second = CARDS[card_id]
    for shown, hidden in ((first, second), (second, first)):
        card = PileCard(card_id, shown, hidden)
        if side is None or side_kept_goes_alike(replaced, card, side):
            return pb.DealtCard(card_id=card_id, shown=shown.to_proto(), hidden=hidden.to_proto())
    return None


def side_kept_goes_alike(replaced: pb.DealtCard, card: PileCard, side: int) -> bool:
    kept_before = replaced.shown if side == pb.SIDE_SHOWN else replaced.hidden
    kept_now = card.shown if side == pb.SIDE_SHOWN else card.hidden
    return (kept_before.kind == pb.FACE_KIND_SPIDER) == kept_now.is_spider


@given(
    seed=st.integers(min_value=0, max_value=2**32), cut=st.floats(0.2, 0.95), viewer_seat=st.sampled_from([0, 1, None])
)
def test_a_face_out_of_sight_never_comes_back_through_the_history(
    seed: int, cut: float, viewer_seat: int | None
) -> None:
    """World A: a random game, looked at part way. World B: the same deal but cards out
    of sight then swapped, the same moves played. Every past event recalled and every
    past view recalled are the same in both, for each seat and a spectator; the admin
    tells the worlds apart whenever a swap changed the deal."""
    viewer = Viewer.spectator() if viewer_seat is None else Viewer.player(viewer_seat)
    played = check_random_game(SPEC, pb.Options(), [SeatInfo(), SeatInfo()], seed, every_step=False)
    commands = played.commands[: max(1, int(len(played.commands) * cut))]
    deal = cast(pb.Event, played.events[0])
    a_states, a_events = replay(deal, commands)
    if ENGINE.status(a_states[-1]).finished:
        return
    world, swaps = swapped_world(deal, a_states[-1], random.Random(seed))
    b_states, b_events = replay(world, commands)
    now_a, now_b = a_states[-1], b_states[-1]
    assert ENGINE.view(now_a, viewer) == ENGINE.view(now_b, viewer)
    for event_a, event_b in zip(a_events, b_events, strict=True):
        assert ENGINE.recall(event_a, now_a, viewer) == ENGINE.recall(event_b, now_b, viewer), event_a
    for then_a, then_b in zip(a_states, b_states, strict=True):
        view_a = ENGINE.recall_view(ENGINE.view(then_a, viewer), then_a, now_a, viewer)
        assert view_a == ENGINE.recall_view(ENGINE.view(then_b, viewer), then_b, now_b, viewer)
    assert (a_events != b_events) == (swaps > 0)


def replay(deal: pb.Event, commands: Sequence[tuple[int, Message]]) -> tuple[list[MookiState], list[pb.Event]]:
    """The events of `commands` played from `deal`, and the state after each event."""
    states, events = [fold(ENGINE, [deal])], [deal]
    for seat, command in commands:
        for event in ENGINE.decide(states[-1], seat, cast(pb.Command, command), random.Random(0)):
            events.append(event)
            states.append(ENGINE.evolve(states[-1], event))
    return states, events
