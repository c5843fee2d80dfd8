"""Mooki Island's own property tests, besides the suite every game passes
(tests/engines/test_properties.py, from engines/mooki/proof.py): many more of its
cheap random games, and a two-worlds test that redacted events reveal nothing a
viewer may not know."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st
from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import SeatInfo, Viewer, fold
from engines.mooki import ENGINE
from engines.mooki.cards import FAMILIES
from engines.mooki.proof import perturb
from engines.mooki.state import MookiState
from tests.support.engine_properties import check_random_game, replay_in_two_worlds, spec

SPEC = spec("mooki")

ages = st.one_of(st.none(), st.integers(min_value=3, max_value=99))
seats = st.lists(st.builds(SeatInfo, age=ages), min_size=2, max_size=2)
options = st.builds(
    pb.Options,
    star_table=st.sampled_from([pb.STAR_TABLE_UNSPECIFIED, pb.STAR_TABLE_GUIDE, pb.STAR_TABLE_ENGLISH_EXAMPLE]),
    custom_stars=st.lists(
        st.builds(pb.TrophyStars, family=st.sampled_from(FAMILIES), stars=st.integers(1, 9)),
        max_size=5,
        unique_by=lambda t: t.family,
    ),
)
seeds = st.integers(min_value=0, max_value=2**32)


EXAMPLES = settings().max_examples  # from the hypothesis profile (tests/conftest.py)


@settings(max_examples=EXAMPLES * 10)
@given(options=options, seats=seats, seed=seeds)
def test_many_random_games_end_conserve_cards_and_replay(options: pb.Options, seats: list[SeatInfo], seed: int) -> None:
    check_random_game(SPEC, options, seats, seed, every_step=False)


@given(seed=seeds, viewer_seat=st.sampled_from([0, 1, None]))
def test_redacted_events_are_the_same_in_worlds_the_viewer_cannot_tell_apart(
    seed: int, viewer_seat: int | None
) -> None:
    """Play a random game (world A). Build world B from A's deal by swapping cards the
    viewer never saw fully (another seat's draws kept on their shown side, the last
    top cards, buried cards never drawn) for lookalikes showing the same face. Replay
    the same moves in B: the viewer's redacted events and views must be identical,
    while the admin's differ whenever a swap happened."""
    viewer = Viewer.spectator() if viewer_seat is None else Viewer.player(viewer_seat)
    played = check_random_game(SPEC, pb.Options(), [SeatInfo(), SeatInfo()], seed, every_step=False)
    deal = cast(pb.Event, played.events[0])
    final: MookiState = played.states[-1]
    rng = random.Random(seed)

    # What the viewer never saw: buried cards never drawn, hidden faces of the last
    # top cards, hidden faces of cards others drew and kept on their shown side.
    never_drawn = {card.card_id for pile in final.piles for card in pile[1:]}
    half_seen: list[int] = [pile[0].card_id for pile in final.piles if pile]
    for collection in final.collections:
        for placed in collection:
            if placed.side == pb.SIDE_SHOWN and not viewer.is_seat(placed.placed_by):
                half_seen.append(placed.card_id)

    cards = {c.card_id: c for pile in deal.game_started.piles for c in pile.cards}
    world_b = pb.Event()
    world_b.CopyFrom(deal)
    position = {
        c.card_id: (p, i) for p, pile in enumerate(world_b.game_started.piles) for i, c in enumerate(pile.cards)
    }
    swapped = 0
    for card_id in half_seen:
        shown = cards[card_id].shown
        twins = [
            other
            for other in sorted(never_drawn)
            if shown in (cards[other].shown, cards[other].hidden) and cards[other] != cards[card_id]
        ]
        if not twins or rng.random() < 0.3:
            continue
        twin = rng.choice(twins)
        never_drawn.discard(twin)
        (p1, i1), (p2, i2) = position[card_id], position[twin]
        a, b = cards[card_id], cards[twin]
        turned = pb.DealtCard(card_id=b.card_id, shown=shown, hidden=b.hidden if b.shown == shown else b.shown)
        world_b.game_started.piles[p1].cards[i1].CopyFrom(turned)
        world_b.game_started.piles[p2].cards[i2].CopyFrom(a)
        position[card_id], position[twin] = (p2, i2), (p1, i1)
        swapped += 1

    state_a = fold(ENGINE, [deal])
    state_b = fold(ENGINE, [world_b])
    assert ENGINE.redact(deal, viewer) == ENGINE.redact(world_b, viewer)
    moves = [(seat, command, 0) for seat, command in played.commands]
    _, _, events_differ = replay_in_two_worlds(ENGINE, state_a, state_b, moves, viewer)
    admin_differs = deal != world_b or events_differ
    assert admin_differs == (swapped > 0)


def test_perturb_really_changes_hidden_things() -> None:
    """The perturbation behind the view checks must not be a no-op."""
    state = fold(
        ENGINE, ENGINE.setup(ENGINE.resolve_options(pb.Options(), [SeatInfo()] * 2), [SeatInfo()] * 2, random.Random(3))
    )
    changed = [perturb(state, Viewer.spectator(), random.Random(i)) != state for i in range(20)]
    assert sum(changed) >= 15
    assert perturb(state, Viewer.admin(), random.Random(0)) == state
    assert replace(state) == state
