"""The text drawing of the picnic that `ludotheque play picnic` shows, and its moves and
events in the words every client reads (their descriptions)."""

from __future__ import annotations

import random

from ludotheque.picnic.v1 import picnic_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, Viewer, fold
from engines.picnic import ENGINE
from engines.picnic import text as render
from engines.picnic.bots import greedy_bot
from engines.picnic.describe import DESCRIBER
from service.app.words.catalogs import catalogs
from tests.picnic.helpers import RAIN, at, dealt, draw, facteur, place, run, started

SEATS = [game_pb2.Seat(index=0, name="Cléo"), game_pb2.Seat(index=1, name="Robin")]
NAMES = [seat.name for seat in SEATS]


def test_the_board_is_drawn_with_its_paths_obstacles_and_pieces() -> None:
    state = place(started(pb.Options(cold_dragon=True), first=[facteur(2)]), facteur=at("C4"))
    text = render.render_view(ENGINE.view(state, Viewer.player(0)), SEATS, 0)
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDEFGHI")
    assert lines[7] == "  4  [H]--o---F---o--~o~--o---o--(P)  ."  # house, path, ford, picnic site
    assert lines[8] == "          |                       |"  # the paths going on south
    assert lines[11] == "  6   .   o---o---o--^o^--5---o---o   ."  # a rocky pass, Taupe on the path
    assert lines[13] == "  7   .   .   .  ~3~  .   .   .   .   D"  # Grenouille in its pond; the dragon
    assert "Facteur Souris: C4" in text and "3 Grenouille D7 (in a pond)" in text
    assert "Nights:         ......  (0 of 6)" in text


def test_players_see_backs_and_the_admin_faces() -> None:
    state, _ = run(started(first=[RAIN]), 0, draw(0))
    player = render.render_view(ENGINE.view(state, Viewer.player(1)), SEATS, 1)
    admin = render.render_view(ENGINE.view(state, Viewer.admin()), SEATS, None)
    assert "   1#  2#  3#" in player and "Rn" not in player  # places counted from 1, as the words say
    assert " 1#Rn " in admin


def words_of_commands(view: pb.View, *commands: pb.Command) -> list[str]:
    """The commands as every client reads them (their descriptions, in English)."""
    english = catalogs().words("en")
    return [english.text(d.phrase, NAMES) for d in DESCRIBER.describe_commands(commands, view)]


def test_every_move_and_event_of_a_game_reads_as_a_sentence() -> None:
    infos = [SeatInfo(), SeatInfo()]
    options = ENGINE.resolve_options(pb.Options(cold_dragon=True, trap_rain=True), infos)
    events = ENGINE.setup(options, infos, random.Random(3))
    state = fold(ENGINE, events)
    rng = random.Random(3)
    english = catalogs().words("en")
    while not ENGINE.status(state).finished:
        seat = ENGINE.status(state).to_act[0]
        view = ENGINE.view(state, Viewer.player(seat))
        assert render.render_view(view, SEATS, seat)
        for text in words_of_commands(view, *ENGINE.legal_commands(state, seat)):
            assert text and "{" not in text and "picnic." not in text  # never a raw key or placeholder
        new = ENGINE.decide(state, seat, greedy_bot(state, seat, rng), rng)
        events += new
        for event in new:
            state = ENGINE.evolve(state, event)
    texts = [english.text(DESCRIBER.describe_event(e), NAMES) for e in events]
    assert all(text and "{" not in text and "picnic." not in text for text in texts)


def test_moves_say_what_they_will_do() -> None:
    state, _ = run(place(started(first=[facteur(2)]), facteur=at("D6")), 0, draw(0))
    view = ENGINE.view(state, Viewer.player(0))
    taupe = pb.Command(move_facteur=pb.MoveFacteur(source=pb.TILE_SOURCE_DRAWN, route=[at("E6"), at("F6")]))
    walk, keep = words_of_commands(view, taupe, pb.Command(keep_tile=pb.KeepTile()))
    assert walk == "Walk Facteur Souris D6 > E6 > F6 with the drawn Facteur Souris 2 tile: invites Mole"
    assert keep == "Keep the drawn Facteur Souris 2 tile for later"
    public = ENGINE.view(dealt(pb.Options(trap_rain=True)), Viewer.spectator())
    envelope = next(p.place for p in public.lid if p.back == pb.TILE_BACK_ENVELOPE)
    assert words_of_commands(public, draw(envelope))[0].endswith("(envelope back)")
