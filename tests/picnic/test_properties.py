"""The picnic's own property tests, besides the suite every game passes
(tests/engines/test_properties.py, from engines/picnic/proof.py): its random games
are won as well as lost; a two-worlds test of its deal, which the suite's two-worlds
check of every move cannot change; and the end turning the lid over."""

from __future__ import annotations

import random
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st
from ludotheque.picnic.v1 import picnic_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, Viewer, fold
from engines.picnic import ENGINE
from engines.picnic.proof import perturb, sensible
from engines.picnic.tiles import Tile
from service.app.model import envelopes
from service.app.views import views
from tests.support.engine_properties import AUDIENCES, check_random_game, spec

SPEC = spec("picnic")

ages = st.one_of(st.none(), st.integers(min_value=3, max_value=99))
seats = st.lists(st.builds(SeatInfo, age=ages), min_size=1, max_size=4)


def _first_game_if(options: pb.Options) -> pb.Options:
    """Some games with the first-game preset (whose variants are off)."""
    if not (options.cold_dragon or options.trap_rain or options.board == pb.BOARD_HARD) and options.no_tents:
        options.preset = pb.PRESET_FIRST_GAME
    return options


options = st.builds(
    pb.Options,
    board=st.sampled_from([pb.BOARD_UNSPECIFIED, pb.BOARD_EASY, pb.BOARD_HARD]),
    cold_dragon=st.booleans(),
    trap_rain=st.booleans(),
    no_tents=st.booleans(),
    short_moves=st.booleans(),
    invite_in_passing=st.booleans(),
    kept_tile_only_with_draw=st.booleans(),
    tent_site=st.sampled_from([pb.TENT_SITE_UNSPECIFIED, pb.TENT_SITE_FACTEUR, pb.TENT_SITE_CHOSEN]),
    dragon_flies=st.booleans(),
).map(_first_game_if)


seeds = st.integers(min_value=0, max_value=2**32)

EXAMPLES = settings().max_examples  # from the hypothesis profile (tests/conftest.py)


def test_random_games_are_won_as_well_as_lost() -> None:
    """The suite's random games (tests/engines/test_properties.py, by engines/picnic/proof.py's
    sensible players) really reach both ends, on both boards."""
    endings = set()
    for seed in range(40):
        board = (pb.BOARD_EASY, pb.BOARD_HARD)[seed % 2]
        played = check_random_game(SPEC, pb.Options(board=board), [SeatInfo()] * 2, seed, sensible, every_step=False)
        result = played.states[-1].result
        endings.add((board, result.won))
    assert endings == {(b, won) for b in (pb.BOARD_EASY, pb.BOARD_HARD) for won in (True, False)}


@given(seed=seeds, viewer_seat=st.sampled_from([0, 1, None]), options=options)
def test_the_deal_reads_the_same_in_worlds_the_viewer_cannot_tell_apart(
    seed: int, viewer_seat: int | None, options: pb.Options
) -> None:
    """The suite's two-worlds check of every move (tests/engines/test_properties.py)
    decides both worlds with the same randomness, so they share every deal: the deal
    is proved here. World B is dealt the lid of world A perturbed as the suite does
    (engines/picnic/proof.py: the faces shuffled among places with the same back): the
    viewer must read the same deal, in the same words, while the admin reads another
    whenever a face moved."""
    viewer = Viewer.spectator() if viewer_seat is None else Viewer.player(viewer_seat)
    seats = [SeatInfo(), SeatInfo()]
    (deal,) = ENGINE.setup(ENGINE.resolve_options(options, seats), seats, random.Random(seed))
    state = fold(ENGINE, [deal])
    other = perturb(state, viewer, random.Random(seed))
    world_b = pb.Event()
    world_b.CopyFrom(deal)
    for place, tile in zip(world_b.game_started.lid, other.lid, strict=True):
        assert tile is not None
        place.tile.CopyFrom(tile.to_proto())
    assert fold(ENGINE, [world_b]) == other
    assert ENGINE.redact(deal, viewer) == ENGINE.redact(world_b, viewer)
    for audience in AUDIENCES:
        described = [
            views.redact(ENGINE, envelopes.wrap(game_pb2.Event, "picnic", e), viewer, audience) for e in (deal, world_b)
        ]
        assert described[0] == described[1]
    assert (ENGINE.redact(deal, Viewer.admin()) != ENGINE.redact(world_b, Viewer.admin())) == (other != state)


@settings(max_examples=max(EXAMPLES // 4, 10))
@given(seed=seeds, options=options)
def test_the_end_turns_the_lid_over_for_everyone(seed: int, options: pb.Options) -> None:
    """What the suite's `reveals` declares of the last move: the game's end (won or
    lost) says which face lay at each place still occupied, and every viewer's view
    shows the lid as the admin's does."""
    played = check_random_game(SPEC, options, [SeatInfo(), SeatInfo()], seed, sensible, every_step=False)
    end = cast(pb.Event, played.events[-1])
    before, final = played.states[-2], played.states[-1]
    ended = end.game_won if end.HasField("game_won") else end.game_lost
    in_lid = {place: tile for place, tile in enumerate(final.lid) if tile is not None}
    assert {r.place: Tile.from_proto(r.tile) for r in ended.revealed} == in_lid
    assert before.result is None
    for viewer in (Viewer.spectator(), Viewer.player(0), Viewer.player(1)):
        assert ENGINE.redact(end, viewer) == end, "public: the table turns the lid over"
        assert ENGINE.view(final, viewer).lid == ENGINE.view(final, Viewer.admin()).lid
