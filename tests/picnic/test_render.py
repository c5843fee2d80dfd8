"""The text drawing of the picnic that `ludotheque play picnic` shows."""

from __future__ import annotations

import random

from ludotheque.picnic.v1 import picnic_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, Viewer, fold
from engines.picnic import ENGINE
from engines.picnic.bots import greedy_bot
from service.cli.render import picnic as render
from tests.picnic.helpers import RAIN, at, dealt, draw, facteur, place, run, started

SEATS = [game_pb2.Seat(index=0, name="Cléo"), game_pb2.Seat(index=1, name="Robin")]


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
    assert "   0#  1#  2#" in player and "Rn" not in player
    assert " 0#Rn " in admin


def test_every_move_and_event_of_a_game_reads_as_a_sentence() -> None:
    infos = [SeatInfo(), SeatInfo()]
    options = ENGINE.resolve_options(pb.Options(cold_dragon=True, trap_rain=True), infos)
    events = ENGINE.setup(options, infos, random.Random(3))
    state = fold(ENGINE, events)
    rng = random.Random(3)
    while not ENGINE.status(state).finished:
        seat = ENGINE.status(state).to_act[0]
        view = ENGINE.view(state, Viewer.player(seat))
        assert render.render_view(view, SEATS, seat)
        for command in ENGINE.legal_commands(state, seat):
            text = render.describe_command(command, view)
            assert text and "action" not in text  # never the raw message
        new = ENGINE.decide(state, seat, greedy_bot(state, seat, rng), rng)
        events += new
        for event in new:
            state = ENGINE.evolve(state, event)
    described = {e.WhichOneof("kind") for e in events if render.describe_event(e, SEATS)}
    assert {"game_started", "tile_drawn", "facteur_moved"} <= described
    assert {e.WhichOneof("kind") for e in events} - described <= {"turn_passed", "game_won", "game_lost"}


def test_moves_say_what_they_will_do() -> None:
    state, _ = run(place(started(first=[facteur(2)]), facteur=at("D6")), 0, draw(0))
    view = ENGINE.view(state, Viewer.player(0))
    taupe = pb.Command(move_facteur=pb.MoveFacteur(source=pb.TILE_SOURCE_DRAWN, route=[at("E6"), at("F6")]))
    assert render.describe_command(taupe, view) == (
        "Walk Facteur Souris D6 > E6 > F6 with the drawn Facteur Souris 2: invites Taupe"
    )
    assert render.describe_command(pb.Command(keep_tile=pb.KeepTile()), view) == (
        "Keep the drawn Facteur Souris 2 for later"
    )
    public = ENGINE.view(dealt(pb.Options(trap_rain=True)), Viewer.spectator())
    envelope = next(p.place for p in public.lid if p.back == pb.TILE_BACK_ENVELOPE)
    assert render.describe_command(draw(envelope), public).endswith("(envelope back)")
