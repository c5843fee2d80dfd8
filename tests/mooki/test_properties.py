"""Mooki Island's own property tests, besides the suite every game passes
(tests/engines/test_properties.py, from engines/mooki/proof.py): many more of its
cheap random games, and a two-worlds test of its deal, which the suite's two-worlds
check of every move cannot change."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from ludotheque.mooki.v1 import mooki_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, Viewer, fold
from engines.mooki import ENGINE
from engines.mooki.cards import FAMILIES
from engines.mooki.proof import perturb
from service.app.model import envelopes
from service.app.views import views
from tests.support.engine_properties import AUDIENCES, check_random_game, spec

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


@given(seed=seeds, viewer_seat=st.sampled_from([0, 1, None]), options=options)
def test_the_deal_reads_the_same_in_worlds_the_viewer_cannot_tell_apart(
    seed: int, viewer_seat: int | None, options: pb.Options
) -> None:
    """The suite's two-worlds check of every move (tests/engines/test_properties.py)
    decides both worlds with the same randomness, so they share every deal: the deal
    is proved here. World B is dealt the piles of world A perturbed as the suite does
    (engines/mooki/proof.py: buried cards shuffled and turned over, each top card
    swapped for a lookalike showing the same face): the viewer must read the same deal,
    in the same words, while the admin reads another whenever the piles changed."""
    viewer = Viewer.spectator() if viewer_seat is None else Viewer.player(viewer_seat)
    seats = [SeatInfo(), SeatInfo()]
    (deal,) = ENGINE.setup(ENGINE.resolve_options(options, seats), seats, random.Random(seed))
    state = fold(ENGINE, [deal])
    other = perturb(state, viewer, random.Random(seed))
    world_b = pb.Event()
    world_b.CopyFrom(deal)
    for pile, cards in zip(world_b.game_started.piles, other.piles, strict=True):
        del pile.cards[:]
        pile.cards.extend(
            pb.DealtCard(card_id=c.card_id, shown=c.shown.to_proto(), hidden=c.hidden.to_proto()) for c in cards
        )
    assert fold(ENGINE, [world_b]).piles == other.piles
    assert ENGINE.redact(deal, viewer) == ENGINE.redact(world_b, viewer)
    for audience in AUDIENCES:
        described = [
            views.redact(ENGINE, envelopes.wrap(game_pb2.Event, "mooki", e), viewer, audience) for e in (deal, world_b)
        ]
        assert described[0] == described[1]
    assert (ENGINE.redact(deal, Viewer.admin()) != ENGINE.redact(world_b, Viewer.admin())) == (other != state)
