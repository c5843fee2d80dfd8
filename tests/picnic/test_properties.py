"""The picnic's own property tests, besides the suite every game passes
(tests/engines/test_properties.py, from engines/picnic/proof.py): its random games
are won as well as lost, and a two-worlds test that redacted events reveal no face
lying in the lid."""

from __future__ import annotations

import random
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st
from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import SeatInfo, Viewer, fold
from engines.picnic import ENGINE
from engines.picnic.proof import perturb, sensible
from engines.picnic.tiles import Tile
from tests.picnic.helpers import dealt
from tests.support.engine_properties import check_random_game, replay_in_two_worlds, spec

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
def test_redacted_events_are_the_same_in_worlds_the_viewer_cannot_tell_apart(
    seed: int, viewer_seat: int | None, options: pb.Options
) -> None:
    """Play a game (world A). Build world B from A's deal by shuffling the tiles
    that were never drawn among their places with the same back. Replay the same
    moves in B: every viewer but the admin gets identical redacted events and
    views, while the admin's deal differs whenever a face moved; until the last
    move, which ends the game and turns the lid over for everyone: then only the
    faces it reveals differ, each world showing its own."""
    viewer = Viewer.spectator() if viewer_seat is None else Viewer.player(viewer_seat)
    played = check_random_game(SPEC, options, [SeatInfo(), SeatInfo()], seed, sensible, every_step=False)
    deal = cast(pb.Event, played.events[0])
    drawn_places = {e.tile_drawn.place for e in cast(list[pb.Event], played.events) if e.HasField("tile_drawn")}
    rng = random.Random(seed)
    world_b = pb.Event()
    world_b.CopyFrom(deal)
    lid = world_b.game_started.lid
    for back in (pb.TILE_BACK_PLAIN, pb.TILE_BACK_ENVELOPE):
        places = [p for p, tile in enumerate(lid) if tile.back == back and p not in drawn_places]
        faces = [pb.Tile().FromString(lid[p].tile.SerializeToString()) for p in places]
        rng.shuffle(faces)
        for p, face in zip(places, faces, strict=True):
            lid[p].tile.CopyFrom(face)

    state_a, state_b = fold(ENGINE, [deal]), fold(ENGINE, [world_b])
    assert ENGINE.redact(deal, viewer) == ENGINE.redact(world_b, viewer)
    assert ENGINE.redact(deal, Viewer.admin()) != ENGINE.redact(world_b, Viewer.admin()) or deal == world_b
    moves = [(seat, command, 0) for seat, command in played.commands]
    state_a, state_b, _ = replay_in_two_worlds(ENGINE, state_a, state_b, moves[:-1], viewer)
    assert ENGINE.view(state_a, viewer) == ENGINE.view(state_b, viewer)
    seat, command = played.commands[-1]
    assert isinstance(command, pb.Command)
    last_a = ENGINE.decide(state_a, seat, command, random.Random(0))
    last_b = ENGINE.decide(state_b, seat, command, random.Random(0))
    assert [_unrevealed(ENGINE.redact(e, viewer)) for e in last_a] == [
        _unrevealed(ENGINE.redact(e, viewer)) for e in last_b
    ]
    for state, last in ((state_a, last_a), (state_b, last_b)):
        final = fold(ENGINE, last, state)
        end = last[-1].game_won if last[-1].HasField("game_won") else last[-1].game_lost
        assert ENGINE.redact(last[-1], viewer) == last[-1]  # public: the table turns the lid over
        in_lid = {place: tile for place, tile in enumerate(final.lid) if tile is not None}
        assert {r.place: Tile.from_proto(r.tile) for r in end.revealed} == in_lid
        assert ENGINE.view(final, viewer).lid == ENGINE.view(final, Viewer.admin()).lid


def _unrevealed(event: pb.Event | None) -> pb.Event:
    """The event without the faces turned over at the end of the game."""
    assert event is not None
    copy = pb.Event()
    copy.CopyFrom(event)
    if copy.HasField("game_won"):
        copy.game_won.ClearField("revealed")
    if copy.HasField("game_lost"):
        copy.game_lost.ClearField("revealed")
    return copy


def test_perturb_really_changes_hidden_things() -> None:
    """The perturbation behind the view checks must not be a no-op."""
    state = dealt(pb.Options(trap_rain=True))
    changed = [perturb(state, Viewer.spectator(), random.Random(i)) != state for i in range(20)]
    assert sum(changed) >= 18
    assert perturb(state, Viewer.admin(), random.Random(0)) == state
    for i in range(20):
        other = perturb(state, Viewer.player(0), random.Random(i))
        assert other.backs == state.backs
        assert [t.back for t in other.lid if t] == [t.back for t in state.lid if t]
