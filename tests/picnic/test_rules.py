"""Facteur Souris's picnic: one test per rule of the rulebook and per decision
taken where it is silent (see seeds/picnic/RULES.md).

Boards, as in seeds/picnic/boards.json (columns A-I, rows 1-7; H house, P picnic
site, # path, s ford over a pond, n rocky pass, ^ rock, ~ pond):

    easy        hard
    ..^......   ..~.####.
    .#######.   .^~.#^.#.
    .#.....#.   .####.^#.
    H###s##P.   H#^.s~^P.
    .#.....#.   .#.~s..~.
    .###n###.   .######..
    ...~.....   ..^...~..
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import InvalidSetup, SeatInfo, Viewer
from engines.picnic import ENGINE
from engines.picnic.bots import choose_place, greedy_bot
from engines.picnic.moves import dragon_move
from engines.picnic.proof import perturb
from engines.picnic.state import PicnicState
from engines.picnic.tiles import Tile, lid_tiles
from tests.picnic.helpers import (
    EASY,
    ECUREUIL,
    ENVELOPE,
    GRENOUILLE,
    HARD,
    HERISSON,
    LAPIN,
    NIGHT,
    OURS,
    PLAIN,
    RAIN,
    TAUPE,
    TENT,
    TRAP_RAIN,
    at,
    cells,
    dealt,
    discard,
    dragon,
    draw,
    facteur,
    friend,
    keep,
    kinds,
    move_dragon,
    move_friend,
    place,
    place_tent,
    run,
    started,
    use_kept,
    walk,
)
from tests.support.refusals import refused

DRAWN, KEPT = pb.TILE_SOURCE_DRAWN, pb.TILE_SOURCE_KEPT


def at_hard(name: str) -> int:
    return at(name, pb.BOARD_HARD)


def routes_of(state: PicnicState, seat: int = 0) -> set[tuple[str, ...]]:
    """The legal walks (Facteur Souris or friends) by space names."""
    board = state.board
    found = set()
    for command in ENGINE.legal_commands(state, seat):
        action = command.WhichOneof("action")
        if action in ("move_facteur", "move_friend"):
            found.add(tuple(board.name(c) for c in getattr(command, action).route))
    return found


def without_friends(state: PicnicState, *invited: int) -> PicnicState:
    """`invited` friends already at the picnic."""
    return place(state, friends=tuple(None if f in invited else c for f, c in enumerate(state.friends)))


# --- setting up --------------------------------------------------------------------


def test_the_lid_holds_the_tiles_of_the_chosen_game() -> None:
    base = Counter((t.kind, t.back) for t in lid_tiles(pb.Options()))
    assert base[(pb.TILE_KIND_NIGHT, PLAIN)] == 6  # as many Night tiles as night spaces
    assert base[(pb.TILE_KIND_TENT, ENVELOPE)] == 2  # Tent tiles have an envelope back
    assert base[(pb.TILE_KIND_RAIN, PLAIN)] == 2
    assert base[(pb.TILE_KIND_DRAGON, PLAIN)] == 0
    assert all(t.back == PLAIN for t in lid_tiles(pb.Options()) if t.kind != pb.TILE_KIND_TENT)
    assert {t.value for t in lid_tiles(pb.Options()) if t.kind == pb.TILE_KIND_FACTEUR} == {1, 2, 3}
    assert {t.value for t in lid_tiles(pb.Options()) if t.kind == pb.TILE_KIND_FRIEND} == {1, 2}
    no_tents = Counter(t.kind for t in lid_tiles(pb.Options(no_tents=True)))
    assert no_tents[pb.TILE_KIND_TENT] == 0
    trap = Counter(lid_tiles(pb.Options(trap_rain=True))) - Counter(lid_tiles(pb.Options()))
    assert trap == Counter({TRAP_RAIN: 1})  # a Rain face behind an envelope back
    dragons = [t for t in lid_tiles(pb.Options(cold_dragon=True)) if t.kind == pb.TILE_KIND_DRAGON]
    assert len(dragons) == 4 and all(1 <= t.value <= 3 for t in dragons)


def test_setup_shuffles_the_tiles_face_down_into_numbered_places() -> None:
    infos = [SeatInfo(), SeatInfo()]
    options = ENGINE.resolve_options(pb.Options(), infos)
    events = ENGINE.setup(options, infos, random.Random(7))
    lid = events[0].game_started.lid
    assert Counter((p.tile.kind, p.tile.value, p.tile.back) for p in lid) == Counter(lid_tiles(options))
    assert all(p.back == p.tile.back for p in lid)
    assert ENGINE.setup(options, infos, random.Random(7)) == events
    assert ENGINE.setup(options, infos, random.Random(8)) != events
    public = ENGINE.redact(events[0], Viewer.spectator())
    assert public is not None
    assert [p.back for p in public.game_started.lid] == [p.back for p in lid]  # the backs are public
    assert not any(p.HasField("tile") for p in public.game_started.lid)  # the faces are not
    assert ENGINE.redact(events[0], Viewer.admin()) == events[0]


def test_facteur_souris_starts_at_home_and_the_friends_at_their_spots() -> None:
    state = dealt()
    assert state.facteur == EASY.house == at("A4")
    assert state.friends == EASY.friend_starts
    assert state.dragon is None and state.tent is None and state.nights == ()
    assert dealt(pb.Options(cold_dragon=True)).dragon == EASY.dragon_start
    hard = dealt(pb.Options(board=pb.BOARD_HARD))
    assert hard.facteur == HARD.house and hard.friends == HARD.friend_starts


def test_one_to_four_players() -> None:
    for count in (1, 2, 3, 4):
        assert ENGINE.resolve_options(pb.Options(), [SeatInfo()] * count).board == pb.BOARD_EASY
    for count in (0, 5):
        with pytest.raises(InvalidSetup):
            ENGINE.resolve_options(pb.Options(), [SeatInfo()] * count)


def test_the_youngest_player_starts_unless_a_first_seat_is_named() -> None:
    ages = [SeatInfo(age=40), SeatInfo(age=5), SeatInfo(age=5)]
    assert ENGINE.resolve_options(pb.Options(), ages).first_seat == 1
    assert ENGINE.resolve_options(pb.Options(), [SeatInfo(age=5), SeatInfo()]).first_seat == 0
    # A seat without an age (a bot, say) is not taken for the youngest: the ages given count.
    assert ENGINE.resolve_options(pb.Options(), [SeatInfo(), SeatInfo(age=9)]).first_seat == 1
    assert ENGINE.resolve_options(pb.Options(), [SeatInfo(), SeatInfo()]).first_seat == 0
    assert ENGINE.resolve_options(pb.Options(first_seat=2), ages).first_seat == 2
    assert ENGINE.status(dealt(pb.Options(first_seat=1))).to_act == (1,)


@pytest.mark.parametrize(
    "options",
    [
        pb.Options(board=7),  # type: ignore[arg-type]
        pb.Options(tent_site=9),  # type: ignore[arg-type]
        pb.Options(first_seat=2),
        pb.Options(preset=5),  # type: ignore[arg-type]
        pb.Options(preset=pb.PRESET_FIRST_GAME, board=pb.BOARD_HARD),
        pb.Options(preset=pb.PRESET_FIRST_GAME, cold_dragon=True),
        pb.Options(preset=pb.PRESET_FIRST_GAME, trap_rain=True),
    ],
)
def test_invalid_options_are_refused(options: pb.Options) -> None:
    with pytest.raises(InvalidSetup):
        ENGINE.resolve_options(options, [SeatInfo(), SeatInfo()])


def test_by_default_the_game_is_the_one_the_rulebook_describes() -> None:
    """The easy board, with the Tent tiles, without the variants."""
    options = ENGINE.resolve_options(pb.Options(), [SeatInfo()])
    assert options.board == pb.BOARD_EASY and options.preset == pb.PRESET_UNSPECIFIED
    assert not (options.no_tents or options.cold_dragon or options.trap_rain)
    assert Counter(t.kind for t in lid_tiles(options))[pb.TILE_KIND_TENT] == 2


def test_the_first_game_preset_is_the_easy_board_without_tent_or_variants() -> None:
    """« Commencez par le plateau facile, sans les variantes, puis ajoutez la Tente ou
    le Dragon »."""
    for board in (pb.BOARD_UNSPECIFIED, pb.BOARD_EASY):
        options = ENGINE.resolve_options(pb.Options(preset=pb.PRESET_FIRST_GAME, board=board), [SeatInfo()])
        assert options.board == pb.BOARD_EASY and options.no_tents
        assert not (options.cold_dragon or options.trap_rain)
        kinds_ = {t.kind for t in lid_tiles(options)}
        assert pb.TILE_KIND_TENT not in kinds_ and pb.TILE_KIND_DRAGON not in kinds_
    house_rules = pb.Options(preset=pb.PRESET_FIRST_GAME, short_moves=True)
    assert ENGINE.resolve_options(house_rules, [SeatInfo()]).short_moves  # the open decisions stay open


def test_the_easy_board_has_fewer_obstacles_and_more_exits_than_the_hard_one() -> None:
    assert EASY.obstacles() < HARD.obstacles()
    assert EASY.exits() > HARD.exits() == 1
    for board in (EASY, HARD):
        assert board.night_spaces == 6 and len(board.friend_starts) == 6
        assert board.path[board.house] and board.path[board.picnic]
        assert board.path_distance[board.house][board.picnic] is not None
        # Some friends start where they cannot be invited: they must be walked off first.
        assert not all(board.invitable(cell) for cell in board.friend_starts)


# --- a turn ------------------------------------------------------------------------


def test_the_active_player_picks_a_place_and_everyone_sees_the_face() -> None:
    state = started(first=[facteur(2)])
    state, events = run(state, 0, draw(0))
    assert kinds(events) == ["tile_drawn"]
    assert events[0].tile_drawn == pb.TileDrawn(seat=0, place=0, tile=facteur(2).to_proto())
    assert ENGINE.redact(events[0], Viewer.player(1)) == events[0]  # turned over for all to see
    assert state.lid[0] is None and state.phase == pb.PHASE_FACTEUR
    public = ENGINE.view(state, Viewer.spectator())
    assert public.drawn.tile == facteur(2).to_proto() and not public.lid[0].occupied


def test_turns_go_round_the_table() -> None:
    state = started(seats=3, first=[NIGHT, NIGHT, NIGHT])
    seats = []
    for spot in range(3):
        seat = ENGINE.status(state).to_act[0]
        seats.append(seat)
        state, events = run(state, seat, draw(spot))
        assert events[-1].turn_passed.seat == (seat + 1) % 3
    assert seats == [0, 1, 2] and ENGINE.status(state).to_act == (0,)
    solo = started(seats=1, first=[NIGHT])
    solo, _ = run(solo, 0, draw(0))
    assert ENGINE.status(solo).to_act == (0,)  # a lone player plays every turn


def test_illegal_moves_are_refused_with_their_rule() -> None:
    state = started(first=[facteur(2)])
    assert refused(ENGINE, state, 1, draw(0)) == "not_your_turn"
    assert refused(ENGINE, state, 0, draw(99)) == "unknown_place"
    assert refused(ENGINE, state, 0, walk(at("B4"))) == "draw_first"
    assert refused(ENGINE, state, 0, move_friend(LAPIN, at("E2"))) == "wrong_phase"
    assert refused(ENGINE, state, 0, pb.Command()) == "unknown_command"
    drawn, _ = run(state, 0, draw(0))
    assert refused(ENGINE, drawn, 0, draw(1)) == "wrong_phase"
    assert refused(ENGINE, drawn, 0, walk(at("B4"), at("B3"), at("B2"))) == "bad_route"
    assert refused(ENGINE, drawn, 0, walk(at("B4"), source=pb.TILE_SOURCE_UNSPECIFIED)) == "unknown_source"
    after, _ = run(drawn, 0, keep())
    assert refused(ENGINE, after, 1, draw(0)) == "empty_place"
    assert refused(ENGINE, ENGINE.initial_state(), 0, draw(0)) == "not_started"


# --- Facteur Souris tiles ----------------------------------------------------------


def test_a_facteur_tile_walks_him_its_spaces_along_the_paths() -> None:
    state, _ = run(started(first=[facteur(2)]), 0, draw(0))
    assert routes_of(state) == {("B4", "B3"), ("B4", "C4"), ("B4", "B5")}
    state, events = run(state, 0, walk(*cells("B4", "C4")))
    assert state.facteur == at("C4")
    assert kinds(events) == ["facteur_moved", "turn_passed"]
    moved = events[0].facteur_moved
    assert (moved.start, list(moved.route), moved.source) == (at("A4"), cells("B4", "C4"), DRAWN)
    assert state.removed == (facteur(2),)  # a used tile leaves the game


def test_he_never_walks_twice_on_a_space_in_one_move() -> None:
    state, _ = run(place(started(first=[facteur(3)]), facteur=at("B3")), 0, draw(0))
    # (the house is a dead end: he stops there)
    assert routes_of(state) == {("B2", "C2", "D2"), ("B4", "A4"), ("B4", "C4", "D4"), ("B4", "B5", "B6")}
    assert refused(ENGINE, state, 0, walk(*cells("B4", "B3", "B2"))) == "bad_route"


def test_reaching_the_picnic_site_ends_his_walk_early() -> None:
    state, _ = run(place(started(first=[facteur(3)]), facteur=at("F4")), 0, draw(0))
    assert routes_of(state) == {("G4", "H4"), ("E4", "D4", "C4")}


def test_a_dead_end_ends_his_walk_early() -> None:
    state = place(started(pb.Options(board=pb.BOARD_HARD), first=[facteur(3)]), facteur=at_hard("F6"))
    state, _ = run(state, 0, draw(0))
    assert routes_of(state) == {("G6",), ("E6", "D6", "C6"), ("E6", "E5", "E4")}


def test_short_moves_let_him_stop_before_the_number_shown() -> None:
    state, _ = run(started(pb.Options(short_moves=True), first=[facteur(2)]), 0, draw(0))
    assert routes_of(state) == {("B4",), ("B4", "B3"), ("B4", "C4"), ("B4", "B5")}
    exact, _ = run(started(first=[facteur(2)]), 0, draw(0))
    assert refused(ENGINE, exact, 0, walk(at("B4"))) == "bad_route"


def test_arriving_on_a_friends_space_invites_the_friend_to_the_picnic() -> None:
    state, _ = run(place(started(first=[facteur(2)]), facteur=at("D6")), 0, draw(0))
    state, events = run(state, 0, walk(*cells("E6", "F6")))  # Taupe's space
    assert kinds(events) == ["facteur_moved", "friend_invited", "turn_passed"]
    invited = events[1].friend_invited
    assert (invited.friend, invited.cell, invited.meeting) == (TAUPE, at("F6"), pb.MEETING_FACTEUR_CAME)
    assert state.friends[TAUPE] is None and state.invited_count == 1
    view = ENGINE.view(state, Viewer.spectator())
    assert view.friends[TAUPE].invited and not view.friends[TAUPE].HasField("cell")


def test_walking_past_a_friend_invites_it_only_with_invite_in_passing() -> None:
    for passing in (False, True):
        state = place(started(pb.Options(invite_in_passing=passing), first=[facteur(3)]), facteur=at("D6"))
        state, _ = run(state, 0, draw(0))
        state, _ = run(state, 0, walk(*cells("E6", "F6", "G6")))  # over Taupe's space
        assert (state.friends[TAUPE] is None) == passing


def test_a_friend_on_a_rock_or_in_a_pond_cannot_be_invited() -> None:
    # A path crosses the pond at E4 (stepping stones) and the rock at E6 (a rocky pass).
    for spot in ("E4", "E6"):
        state = place(started(first=[facteur(2)]), facteur=at("C4" if spot == "E4" else "C6"))
        state = place(state, friends=(at(spot), *state.friends[1:]))
        state, _ = run(state, 0, draw(0))
        route = cells("D4", "E4") if spot == "E4" else cells("D6", "E6")
        state, events = run(state, 0, walk(*route))
        assert state.facteur == at(spot) and state.friends[LAPIN] == at(spot)
        assert "friend_invited" not in kinds(events)


def test_a_facteur_tile_may_be_kept_for_later() -> None:
    state, _ = run(started(first=[facteur(3)]), 0, draw(0))
    assert pb.Command(keep_tile=pb.KeepTile()) in ENGINE.legal_commands(state, 0)
    state, events = run(state, 0, keep())
    assert kinds(events) == ["tile_kept", "turn_passed"]
    assert state.kept == (facteur(3), None) and state.facteur == EASY.house
    assert ENGINE.view(state, Viewer.player(1)).kept == [pb.KeptTile(seat=0, tile=facteur(3).to_proto())]


def test_one_kept_tile_per_player_holding_one_means_using_or_discarding_one() -> None:
    state = place(started(first=[facteur(1)]), kept=(facteur(3), None))
    state, _ = run(state, 0, draw(0))
    legal = ENGINE.legal_commands(state, 0)
    assert keep() not in legal
    assert refused(ENGINE, state, 0, keep()) == "already_holding"
    assert {c.discard_tile.source for c in legal if c.HasField("discard_tile")} == {DRAWN, KEPT}
    assert {c.move_facteur.source for c in legal if c.HasField("move_facteur")} == {DRAWN, KEPT}

    used_drawn, events = run(state, 0, walk(at("B4")))
    assert used_drawn.kept == (facteur(3), None) and used_drawn.removed == (facteur(1),)
    used_kept, events = run(state, 0, use_kept(*cells("B4", "C4", "D4")))
    assert kinds(events) == ["facteur_moved", "tile_kept", "turn_passed"]
    assert used_kept.kept == (facteur(1), None) and used_kept.removed == (facteur(3),)
    assert used_kept.facteur == at("D4")
    dropped_drawn, events = run(state, 0, discard(DRAWN))
    assert kinds(events) == ["tile_discarded", "turn_passed"]
    assert dropped_drawn.kept == (facteur(3), None) and dropped_drawn.removed == (facteur(1),)
    dropped_kept, events = run(state, 0, discard(KEPT))
    assert kinds(events) == ["tile_discarded", "tile_kept", "turn_passed"]
    assert dropped_kept.kept == (facteur(1), None) and dropped_kept.removed == (facteur(3),)


def test_without_a_kept_tile_there_is_nothing_to_discard() -> None:
    state, _ = run(started(first=[facteur(1)]), 0, draw(0))
    assert refused(ENGINE, state, 0, discard(DRAWN)) == "nothing_to_discard"
    assert refused(ENGINE, state, 0, use_kept(at("B4"))) == "no_kept_tile"


def test_a_kept_tile_may_be_used_at_the_start_of_its_holders_turn_then_they_draw() -> None:
    state = place(started(first=[NIGHT]), kept=(facteur(2), facteur(1)))
    assert use_kept(*cells("B4", "C4")) in ENGINE.legal_commands(state, 0)
    assert refused(ENGINE, state, 1, use_kept(at("B4"))) == "not_your_turn"  # only on your own turn
    state, events = run(state, 0, use_kept(*cells("B4", "C4")))
    assert kinds(events) == ["facteur_moved"]  # no turn passes: now draw
    assert state.phase == pb.PHASE_DRAW and ENGINE.status(state).to_act == (0,)
    assert state.kept == (None, facteur(1))
    assert all(c.HasField("draw") for c in ENGINE.legal_commands(state, 0))
    state, events = run(state, 0, draw(0))
    assert events[-1].turn_passed.seat == 1


def test_kept_tile_only_with_draw_keeps_it_for_the_next_facteur_tile() -> None:
    options = pb.Options(kept_tile_only_with_draw=True)
    state = place(started(options, first=[facteur(1)]), kept=(facteur(2), None))
    assert not any(c.HasField("move_facteur") for c in ENGINE.legal_commands(state, 0))
    assert refused(ENGINE, state, 0, use_kept(*cells("B4", "C4"))) == "kept_tile_not_now"
    state, _ = run(state, 0, draw(0))
    assert use_kept(*cells("B4", "C4")) in ENGINE.legal_commands(state, 0)


# --- Friend tiles ------------------------------------------------------------------


def test_a_friend_tile_walks_a_friend_orthogonally_over_anything() -> None:
    state, _ = run(started(first=[friend(1)]), 0, draw(0))
    assert state.phase == pb.PHASE_FRIEND
    by_friend: dict[int, set[str]] = {}
    for command in ENGINE.legal_commands(state, 0):
        route = command.move_friend.route
        assert len(route) == 1
        by_friend.setdefault(command.move_friend.friend, set()).add(EASY.name(route[0]))
    assert by_friend[ECUREUIL] == {"C2", "D3", "C4", "B3"}  # no diagonals; paths are no obstacle
    assert by_friend[GRENOUILLE] == {"D6", "E7", "C7"}  # out of its pond (the board's edge stops it)
    state, events = run(state, 0, move_friend(ECUREUIL, at("D3")))
    assert kinds(events) == ["friend_moved", "turn_passed"]
    assert state.friends[ECUREUIL] == at("D3") and state.removed == (friend(1),)


def test_a_friend_may_walk_over_ponds_and_rocks_in_two_steps() -> None:
    state, _ = run(started(first=[friend(2)]), 0, draw(0))
    routes = {r for r in routes_of(state) if r[-1] in ("C6", "E7", "D5")}
    assert ("D6", "C6") in routes and ("D6", "D5") in routes  # Grenouille out of its pond
    assert all(len(route) == 2 for route in routes_of(state))
    assert ("C3",) not in routes_of(state) and ("B3", "C3") not in routes_of(state)  # never back to the start
    state, _ = run(state, 0, move_friend(GRENOUILLE, *cells("D6", "E6")))
    assert state.friends[GRENOUILLE] == at("E6")  # on a rocky pass: walked over, not stopped by


def test_a_friend_walking_into_facteur_souris_is_invited() -> None:
    state, _ = run(place(started(first=[friend(2)]), facteur=at("B3")), 0, draw(0))
    assert ("B3",) in routes_of(state)  # meeting him ends the walk early
    assert refused(ENGINE, state, 0, move_friend(ECUREUIL, *cells("B3", "B2"))) == "bad_route"
    state, events = run(state, 0, move_friend(ECUREUIL, at("B3")))
    assert kinds(events) == ["friend_moved", "friend_invited", "turn_passed"]
    invited = events[1].friend_invited
    assert (invited.friend, invited.meeting, invited.invited_count) == (ECUREUIL, pb.MEETING_FRIEND_CAME, 1)
    assert state.friends[ECUREUIL] is None


def test_a_friend_meeting_facteur_on_a_ford_is_not_invited() -> None:
    state = place(started(first=[friend(1)]), facteur=at("E4"))
    state = place(state, friends=(at("E5"), *state.friends[1:]))
    state, _ = run(state, 0, draw(0))
    state, events = run(state, 0, move_friend(LAPIN, at("E4")))
    assert "friend_invited" not in kinds(events)
    assert state.friends[LAPIN] == at("E4") == state.facteur


def test_friends_enter_the_picnic_site_only_to_meet_facteur_there() -> None:
    state, _ = run(started(first=[friend(2)]), 0, draw(0))
    assert not any(route[-1] == "H4" for route in routes_of(state))
    waiting, _ = run(place(started(first=[friend(2)]), facteur=at("H4")), 0, draw(0))
    assert ("H5", "H4") in routes_of(waiting) and ("G4", "H4") in routes_of(waiting)
    waiting, events = run(waiting, 0, move_friend(HERISSON, *cells("G4", "H4")))
    assert events[1].friend_invited.friend == HERISSON


def test_a_friend_tile_nobody_can_use_is_discarded() -> None:
    state = without_friends(started(first=[friend(2)]), *range(6))
    state, events = run(state, 0, draw(0))
    assert kinds(events) == ["tile_drawn", "tile_discarded", "turn_passed"]
    assert state.removed == (friend(2),)


# --- Rain, Tent, Night ---------------------------------------------------------------


def test_rain_sends_facteur_home_and_the_tile_back_to_its_place() -> None:
    state = place(started(first=[NIGHT, RAIN]), facteur=at("F4"))
    state, events = run(state, 0, draw(1))
    assert kinds(events) == ["tile_drawn", "rain_fell", "turn_passed"]
    rain = events[1].rain_fell
    assert (rain.place, rain.shelter, rain.cell) == (1, pb.SHELTER_HOUSE, EASY.house)
    assert state.facteur == EASY.house and state.lid[1] == RAIN  # back in the lid, at the same place
    assert state.removed == ()
    assert ENGINE.legal_commands(state, 1)[1] == draw(1)  # it may be drawn again


def test_a_rain_tile_back_in_the_lid_shows_only_its_back_again() -> None:
    state, _ = run(started(first=[RAIN]), 0, draw(0))
    admin = ENGINE.view(state, Viewer.admin())
    assert admin.lid[0].tile.kind == pb.TILE_KIND_RAIN
    for viewer in (Viewer.player(0), Viewer.player(1), Viewer.spectator()):
        lid = ENGINE.view(state, viewer).lid
        assert lid[0].occupied and lid[0].back == PLAIN and not lid[0].HasField("tile")
        # the view is the same whatever lies there: players must remember
        for seed in range(10):
            assert ENGINE.view(perturb(state, viewer, random.Random(seed)), viewer) == ENGINE.view(state, viewer)
    assert perturb(state, Viewer.spectator(), random.Random(1)).lid[0] != RAIN


def test_the_trap_rain_tile_looks_like_a_tent_and_works_like_rain() -> None:
    state = place(started(pb.Options(trap_rain=True), first=[TRAP_RAIN, TENT]), facteur=at("D4"))
    view = ENGINE.view(state, Viewer.spectator())
    assert view.lid[0].back == view.lid[1].back == ENVELOPE
    state, events = run(state, 0, draw(0))
    assert events[1].rain_fell.place == 0 and state.facteur == EASY.house
    assert state.lid[0] == TRAP_RAIN and ENGINE.view(state, Viewer.spectator()).lid[0].back == ENVELOPE


def shelter(where: pb.Shelter.ValueType) -> pb.Command:
    return pb.Command(take_shelter=pb.TakeShelter(shelter=where))


def test_a_tent_goes_up_where_facteur_stands_and_shelters_him_from_rain() -> None:
    state = place(started(first=[TENT, RAIN]), facteur=at("D4"))
    state, events = run(state, 0, draw(0))
    assert kinds(events) == ["tile_drawn", "tent_built", "turn_passed"]
    assert state.tent == at("D4") and state.tent_tile == TENT
    state = place(state, facteur=at("G4"))
    state, events = run(state, 1, draw(1))
    assert kinds(events) == ["tile_drawn"] and state.phase == pb.PHASE_SHELTER
    state, events = run(state, 1, shelter(pb.SHELTER_TENT))
    assert kinds(events) == ["rain_fell", "turn_passed"]
    assert events[0].rain_fell.shelter == pb.SHELTER_TENT and state.facteur == at("D4")
    assert state.lid[1] == RAIN and state.phase == pb.PHASE_DRAW


def test_with_a_tent_up_the_player_chooses_the_tent_or_the_house() -> None:
    """« il peut s'y réfugier en cas de Pluie au lieu de revenir jusqu'à sa maison »."""
    state = place(started(first=[RAIN]), facteur=at("G4"), tent=at("D4"))
    assert refused(ENGINE, state, 0, shelter(pb.SHELTER_HOUSE)) == "wrong_phase"
    state, _ = run(state, 0, draw(0))
    assert ENGINE.legal_commands(state, 0) == [shelter(pb.SHELTER_HOUSE), shelter(pb.SHELTER_TENT)]
    assert refused(ENGINE, state, 0, draw(1)) == "wrong_phase"
    assert refused(ENGINE, state, 0, shelter(pb.SHELTER_UNSPECIFIED)) == "unknown_shelter"
    assert refused(ENGINE, state, 1, shelter(pb.SHELTER_HOUSE)) == "not_your_turn"
    state, events = run(state, 0, shelter(pb.SHELTER_HOUSE))
    assert events[0].rain_fell == pb.RainFell(place=0, shelter=pb.SHELTER_HOUSE, cell=EASY.house)
    assert state.facteur == EASY.house and state.tent == at("D4")


def test_a_tent_at_the_house_leaves_nothing_to_choose() -> None:
    state, events = run(place(started(first=[RAIN]), facteur=at("G4"), tent=EASY.house), 0, draw(0))
    assert kinds(events) == ["tile_drawn", "rain_fell", "turn_passed"] and state.facteur == EASY.house


@pytest.mark.parametrize("where", [pb.SHELTER_HOUSE, pb.SHELTER_TENT])
def test_rain_bringing_facteur_onto_a_friend_invites_the_friend(where: pb.Shelter.ValueType) -> None:
    """He arrives on the friend's space, as with a tile: the friend is invited (on a
    meadow; on stepping stones, not)."""
    state = place(started(first=[RAIN]), facteur=at("G4"), tent=at("C4"))
    shelter_cell = EASY.house if where == pb.SHELTER_HOUSE else at("C4")
    state = place(state, friends=(shelter_cell, *state.friends[1:]))
    state, _ = run(state, 0, draw(0))
    state, events = run(state, 0, shelter(where))
    assert kinds(events) == ["rain_fell", "friend_invited", "turn_passed"]
    assert events[1].friend_invited == pb.FriendInvited(
        friend=LAPIN, cell=shelter_cell, meeting=pb.MEETING_FACTEUR_CAME, invited_count=1
    )
    assert state.friends[LAPIN] is None
    ford = place(started(first=[RAIN]), facteur=at("G4"), tent=at("E4"))
    ford = place(ford, friends=(at("E4"), *ford.friends[1:]))
    ford, _ = run(ford, 0, draw(0))
    ford, events = run(ford, 0, shelter(pb.SHELTER_TENT))
    assert kinds(events) == ["rain_fell", "turn_passed"] and ford.friends[LAPIN] == at("E4")


def test_a_tent_never_stands_on_the_picnic_site() -> None:
    """Whichever tent_site: drawn while Facteur Souris waits at the picnic site, the
    Tent tile is set aside and the Tent already up (if any) stays."""
    state = place(started(first=[TENT, RAIN]), facteur=EASY.picnic, tent=at("D4"))
    state, events = run(state, 0, draw(0))
    assert kinds(events) == ["tile_drawn", "tile_discarded", "turn_passed"]
    assert state.tent == at("D4") and state.removed == (TENT,) and state.facteur == EASY.picnic
    chosen, _ = run(started(pb.Options(tent_site=pb.TENT_SITE_CHOSEN), first=[TENT]), 0, draw(0))
    assert EASY.picnic not in {c.place_tent.cell for c in ENGINE.legal_commands(chosen, 0)}


def test_a_second_tent_moves_the_tent() -> None:
    state = place(started(first=[TENT, TENT]), facteur=at("C4"))
    state, _ = run(state, 0, draw(0))
    state, _ = run(place(state, facteur=at("F4")), 1, draw(1))
    assert state.tent == at("F4") and state.removed == (TENT,)


def test_tent_site_chosen_lets_the_drawer_choose_a_path_space() -> None:
    state, events = run(started(pb.Options(tent_site=pb.TENT_SITE_CHOSEN), first=[TENT]), 0, draw(0))
    assert kinds(events) == ["tile_drawn"] and state.phase == pb.PHASE_TENT
    sites = {c.place_tent.cell for c in ENGINE.legal_commands(state, 0)}
    assert sites == {c for c in EASY.cells if EASY.path[c]} - {EASY.picnic}
    assert refused(ENGINE, state, 0, place_tent(EASY.picnic)) == "bad_tent_site"
    assert refused(ENGINE, state, 0, place_tent(at("C3"))) == "bad_tent_site"  # a meadow, off the paths
    state, events = run(state, 0, place_tent(at("G4")))
    assert kinds(events) == ["tent_built", "turn_passed"] and state.tent == at("G4")


def test_without_tents_rain_always_sends_him_home() -> None:
    state = dealt(pb.Options(no_tents=True))
    assert not any(t is not None and t.kind == pb.TILE_KIND_TENT for t in state.lid)
    assert all(back == PLAIN for back in state.backs)


def test_a_night_tile_fills_the_next_night_space() -> None:
    state, events = run(started(first=[NIGHT]), 0, draw(0))
    assert kinds(events) == ["tile_drawn", "night_fell", "turn_passed"]
    assert events[1].night_fell.space == 1 and state.nights == (NIGHT,)
    assert ENGINE.view(state, Viewer.spectator()).nights == 1


def test_at_the_end_every_tile_left_in_the_lid_is_turned_over_for_everyone() -> None:
    state = without_friends(started(first=[facteur(1), RAIN, NIGHT]), LAPIN, ECUREUIL, GRENOUILLE, OURS)
    lid = {place: tile for place, tile in enumerate(state.lid) if tile is not None and place != 0}
    state, _ = run(place(state, facteur=at("G4")), 0, draw(0))
    assert not any(p.HasField("tile") for p in ENGINE.view(state, Viewer.spectator()).lid)
    state, events = run(state, 0, walk(at("H4")))
    revealed = {r.place: Tile.from_proto(r.tile) for r in events[-1].game_won.revealed}
    assert revealed == lid and revealed[1] == RAIN
    for viewer in (Viewer.player(1), Viewer.spectator()):
        assert ENGINE.redact(events[-1], viewer) == events[-1]  # nothing hidden any more
        view = ENGINE.view(state, viewer)
        assert {p.place: Tile.from_proto(p.tile) for p in view.lid if p.HasField("tile")} == lid
    night = without_friends(started(first=[NIGHT] * 6), LAPIN)
    for spot in range(6):
        night, events = run(night, ENGINE.status(night).to_act[0], draw(spot))
    assert len(events[-1].game_lost.revealed) == len(night.lid) - 6


def test_the_sixth_night_loses_the_game_at_once() -> None:
    state = without_friends(started(first=[NIGHT] * 6), LAPIN, OURS, TAUPE)
    for spot in range(6):
        seat = ENGINE.status(state).to_act[0]
        state, events = run(state, seat, draw(spot))
    assert kinds(events) == ["tile_drawn", "night_fell", "game_lost"]
    lost = events[-1].game_lost
    assert (lost.reason, lost.invited_count) == (pb.LOSS_REASON_NIGHT, 3)
    status = ENGINE.status(state)
    assert status.finished and status.winners == () and "sixth night" in status.summary
    assert ENGINE.legal_commands(state, 0) == ENGINE.legal_commands(state, 1) == []
    assert refused(ENGINE, state, 0, draw(7)) == "game_over"


# --- victory -----------------------------------------------------------------------


def test_reaching_the_picnic_with_four_friends_wins_for_everyone() -> None:
    state = without_friends(started(seats=3, first=[facteur(1)]), LAPIN, ECUREUIL, GRENOUILLE, OURS)
    state, _ = run(place(state, facteur=at("G4")), 0, draw(0))
    state, events = run(state, 0, walk(at("H4")))
    assert kinds(events) == ["facteur_moved", "game_won"]
    assert events[-1].game_won.invited_count == 4
    status = ENGINE.status(state)
    assert status.finished and status.winners == (0, 1, 2) and "everybody wins" in status.summary
    assert ENGINE.view(state, Viewer.spectator()).result == pb.Result(won=True)


def test_the_picnic_with_three_friends_waits_for_the_fourth() -> None:
    state = without_friends(started(first=[facteur(1), friend(1)]), LAPIN, ECUREUIL, GRENOUILLE)
    state, _ = run(place(state, facteur=at("G4")), 0, draw(0))
    state, events = run(state, 0, walk(at("H4")))
    assert kinds(events) == ["facteur_moved", "turn_passed"] and state.facteur == EASY.picnic
    state = place(state, friends=(*state.friends[:HERISSON], at("H5"), *state.friends[HERISSON + 1 :]))
    state, _ = run(state, 1, draw(1))
    state, events = run(state, 1, move_friend(HERISSON, at("H4")))
    assert kinds(events) == ["friend_moved", "friend_invited", "game_won"]


def test_the_kept_tile_can_win_before_drawing() -> None:
    state = without_friends(started(first=[NIGHT]), LAPIN, ECUREUIL, GRENOUILLE, OURS)
    state = place(state, facteur=at("F4"), kept=(facteur(2), None))
    state, events = run(state, 0, use_kept(*cells("G4", "H4")))
    assert kinds(events) == ["facteur_moved", "game_won"] and ENGINE.status(state).finished


def test_the_fourth_invitation_away_from_the_picnic_does_not_win() -> None:
    """Facteur Souris must be at the picnic site himself: inviting the fourth friend
    elsewhere (by his walk, a friend's, or the rain) wins nothing yet."""
    base = without_friends(started(first=[facteur(1), friend(1), RAIN, facteur(3)]), LAPIN, ECUREUIL, GRENOUILLE)
    state, _ = run(place(base, facteur=at("G6")), 0, draw(0))
    state, events = run(state, 0, walk(at("F6")))  # Taupe stands on F6
    assert kinds(events) == ["facteur_moved", "friend_invited", "turn_passed"]
    assert state.invited_count == 4 and not ENGINE.status(state).finished
    walked, _ = run(place(base, facteur=at("G4")), 0, draw(1))
    walked, events = run(walked, 0, move_friend(HERISSON, at("G4")))
    assert kinds(events) == ["friend_moved", "friend_invited", "turn_passed"] and walked.invited_count == 4
    rained = place(
        base, facteur=at("G4"), friends=(*base.friends[:HERISSON], EASY.house, *base.friends[HERISSON + 1 :])
    )
    rained, events = run(rained, 0, draw(2))
    assert kinds(events) == ["tile_drawn", "rain_fell", "friend_invited", "turn_passed"] and rained.invited_count == 4
    state, _ = run(place(state, facteur=at("G2")), 1, draw(3))  # then he walks to the picnic: won
    state, events = run(state, 1, walk(*cells("H2", "H3", "H4")))
    assert kinds(events) == ["facteur_moved", "game_won"] and ENGINE.status(state).finished


def test_the_end_is_checked_whatever_brings_facteur_to_the_picnic_site() -> None:
    """A won game stops at once, even when neither a tile nor a friend brought him:
    here a Tent put on the picnic site by hand (the rules no longer let one stand
    there) and the rain sending him to it with four friends already there."""
    state = without_friends(started(first=[RAIN]), LAPIN, ECUREUIL, GRENOUILLE, HERISSON)
    state = place(state, facteur=at("D4"), tent=EASY.picnic)
    state, _ = run(state, 0, draw(0))
    state, events = run(state, 0, shelter(pb.SHELTER_TENT))
    assert kinds(events) == ["rain_fell", "game_won"] and ENGINE.status(state).winners == (0, 1)


def test_more_than_four_friends_is_a_victory_too() -> None:
    state = without_friends(started(first=[facteur(1)]), *range(5))
    state, _ = run(place(state, facteur=at("G4")), 0, draw(0))
    state, events = run(state, 0, walk(at("H4")))
    assert events[-1].game_won.invited_count == 5 and ENGINE.status(state).winners == (0, 1)


# --- the Cold Dragon -----------------------------------------------------------------


def dragon_game(first: list[Tile], **pieces: object) -> PicnicState:
    return place(started(pb.Options(cold_dragon=True), first=first), **pieces)


def test_the_dragon_walks_its_arrows_along_the_shortest_way() -> None:
    state = dragon_game([dragon(1)], facteur=at("E4"), dragon=at("E7"))
    state, events = run(state, 0, draw(0))
    assert kinds(events) == ["tile_drawn", "dragon_moved", "turn_passed"]
    moved = events[1].dragon_moved
    assert (moved.start, moved.to, moved.stuck) == (at("E7"), at("E6"), False)
    assert state.dragon == at("E6") and state.removed == (dragon(1),)


def test_on_a_tie_the_player_who_drew_the_dragon_chooses() -> None:
    state = dragon_game([dragon(1)], facteur=at("H6"))  # the dragon starts at I7, two ways from H6
    state, events = run(state, 0, draw(0))
    assert kinds(events) == ["tile_drawn"] and state.phase == pb.PHASE_DRAGON
    assert ENGINE.legal_commands(state, 0) == [move_dragon(at("I6")), move_dragon(at("H7"))]
    assert list(ENGINE.view(state, Viewer.spectator()).dragon_choices) == [at("I6"), at("H7")]
    assert refused(ENGINE, state, 1, move_dragon(at("H7"))) == "not_your_turn"
    assert refused(ENGINE, state, 0, move_dragon(at("I5"))) == "bad_dragon_move"
    state, events = run(state, 0, move_dragon(at("H7")))
    assert kinds(events) == ["dragon_moved", "turn_passed"] and state.dragon == at("H7")


def test_the_dragon_walks_around_rocks_and_ponds_unless_it_flies() -> None:
    # Hard board: from B1, the pond at C1 and the rock at B2 stand between it and E1.
    walking = dragon_move(HARD, at_hard("B1"), at_hard("E1"), 1, flies=False)
    flying = dragon_move(HARD, at_hard("B1"), at_hard("E1"), 1, flies=True)
    assert walking.choices == (at_hard("A1"),) and flying.choices == (at_hard("C1"),)
    options = pb.Options(board=pb.BOARD_HARD, cold_dragon=True, dragon_flies=True)
    state = place(started(options, first=[dragon(1)]), facteur=at_hard("E1"), dragon=at_hard("B1"))
    state, _ = run(state, 0, draw(0))
    assert state.dragon == at_hard("C1")  # over the pond


def test_the_dragon_reaching_facteur_souris_loses_the_game() -> None:
    state = dragon_game([dragon(2)], facteur=at("H6"))
    state, events = run(state, 0, draw(0))
    assert kinds(events) == ["tile_drawn", "dragon_moved", "game_lost"]
    assert events[1].dragon_moved.to == at("H6")
    assert events[-1].game_lost.reason == pb.LOSS_REASON_DRAGON
    assert ENGINE.status(state).winners == () and "Dragon" in ENGINE.status(state).summary


def test_the_dragon_never_enters_the_house_or_the_picnic_site() -> None:
    state = dragon_game([dragon(2), dragon(3)], dragon=at("A6"))  # Facteur Souris at home, A4
    state, events = run(state, 0, draw(0))
    assert events[1].dragon_moved.to == at("A5") and not ENGINE.status(state).finished
    state, events = run(state, 1, draw(1))
    assert events[1].dragon_moved.stuck and state.dragon == at("A5")  # it waits at the door


def test_facteur_may_tiptoe_past_the_dragon_but_never_stop_on_its_space() -> None:
    state, _ = run(dragon_game([facteur(2), facteur(1)], dragon=at("C4"), facteur=at("B4")), 0, draw(0))
    assert ("C4", "D4") in routes_of(state)
    assert not any(route[-1] == "C4" for route in routes_of(state))
    state, _ = run(dragon_game([facteur(1)], dragon=at("B4")), 0, draw(0))
    assert routes_of(state) == set()  # a 1 only leads onto the dragon: keep the tile
    assert ENGINE.legal_commands(state, 0) == [keep()]


def test_rain_sending_facteur_to_a_tent_the_dragon_sits_on_loses() -> None:
    state = dragon_game([RAIN], facteur=at("G4"), dragon=at("D4"), tent=at("D4"))
    state, _ = run(state, 0, draw(0))
    home, events = run(state, 0, shelter(pb.SHELTER_HOUSE))  # the choice that saves him
    assert kinds(events) == ["rain_fell", "turn_passed"] and not ENGINE.status(home).finished
    state, events = run(state, 0, shelter(pb.SHELTER_TENT))
    assert kinds(events) == ["rain_fell", "game_lost"]
    assert events[-1].game_lost.reason == pb.LOSS_REASON_DRAGON


# --- what players see, and the bots ------------------------------------------------


def test_players_and_spectators_see_every_back_and_no_face_in_the_lid() -> None:
    state = dealt(pb.Options(trap_rain=True, cold_dragon=True))
    for viewer in (Viewer.player(0), Viewer.player(1), Viewer.spectator()):
        view = ENGINE.view(state, viewer)
        assert [p.back for p in view.lid] == list(state.backs)
        assert not any(p.HasField("tile") for p in view.lid)
        assert view.board.width == 9 and len(view.board.cells) == 63
        assert view.board.cells[at("E4")].terrain == pb.TERRAIN_POND and view.board.cells[at("E4")].path
    admin = ENGINE.view(state, Viewer.admin())
    assert [Counter((p.tile.kind, p.tile.value) for p in admin.lid)] == [
        Counter((t.kind, t.value) for t in state.lid if t is not None)
    ]


def test_the_greedy_bot_avoids_the_places_where_it_saw_rain_go_back() -> None:
    state, _ = run(started(first=[RAIN, RAIN]), 0, draw(0))
    state, _ = run(state, 1, draw(1))
    assert state.rain_places == {0, 1}
    for seed in range(30):
        assert choose_place(state, random.Random(seed)) not in (0, 1)
    # ...and the view does not say where: only the players' (and bots') memory does.
    assert not any(p.HasField("tile") for p in ENGINE.view(state, Viewer.player(0)).lid)


def test_the_greedy_bot_runs_home_rather_than_into_the_dragon() -> None:
    state = dragon_game([RAIN], facteur=at("G4"), dragon=at("D4"), tent=at("D4"))
    state, _ = run(state, 0, draw(0))
    for seed in range(5):
        assert greedy_bot(state, 0, random.Random(seed)) == shelter(pb.SHELTER_HOUSE)


def test_the_greedy_bot_takes_an_invitation() -> None:
    state, _ = run(place(started(first=[facteur(2)]), facteur=at("D6")), 0, draw(0))
    assert greedy_bot(state, 0, random.Random(0)) == walk(*cells("E6", "F6"))
    state, _ = run(place(started(first=[friend(2)]), facteur=at("B3")), 0, draw(0))
    command = greedy_bot(state, 0, random.Random(0))
    assert command.move_friend.route[-1] == at("B3")
