"""Where the Rain tile went back is for the players to remember (engines/picnic/memory.py):
a past event or view read again during the game does not tell the place of a tile lying
face down there again; live events do; after the game, for the admin and with
`open_history`, everything is open. A two-worlds test: a Rain tile drawn from one place
or another, the same game otherwise, reads back the same."""

from __future__ import annotations

import random

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import Viewer
from engines.picnic import ENGINE
from engines.picnic.state import PicnicState
from tests.picnic.helpers import EASY, NIGHT, RAIN, TENT, at, draw, facteur, place, started, walk
from tests.support.engine_properties import viewers

SHELTER = pb.Command(take_shelter=pb.TakeShelter(shelter=pb.SHELTER_HOUSE))


def play(state: PicnicState, moves: list[tuple[int, pb.Command]]) -> tuple[list[PicnicState], list[pb.Event]]:
    """The events of `moves`, and the state after each event (states[0]: before them)."""
    states, events = [state], []
    for seat, command in moves:
        for event in ENGINE.decide(states[-1], seat, command, random.Random(0)):
            events.append(event)
            states.append(ENGINE.evolve(states[-1], event))
    return states, events


def test_where_the_rain_went_back_is_not_told_again() -> None:
    # Cléo draws the Rain at place 2; Robin draws the Night at place 0.
    state = place(started(first=[NIGHT, facteur(1), RAIN]), facteur=at("C4"))
    states, events = play(state, [(0, draw(2)), (1, draw(0))])
    now = states[-1]
    drawn, rain = events[0], events[1]
    assert drawn.tile_drawn.place == 2 and rain.rain_fell.place == 2  # as it happened, for everyone
    assert ENGINE.redact(rain, Viewer.player(1)) == rain
    for viewer in viewers(2):
        told_draw, told_rain = ENGINE.recall(drawn, now, viewer), ENGINE.recall(rain, now, viewer)
        assert told_draw is not None and told_rain is not None
        assert told_draw.tile_drawn.place_hidden and told_draw.tile_drawn.place == 0
        assert told_draw.tile_drawn.tile.kind == pb.TILE_KIND_RAIN  # what fell stays told
        assert told_rain.rain_fell.place_hidden and told_rain.rain_fell.cell == EASY.house
        night = ENGINE.recall(events[3], now, viewer)  # place 0 is empty for all to see
        assert night == events[3] and not night.tile_drawn.place_hidden
    assert drawn.tile_drawn.place == 2  # the stored event is untouched


def test_the_rain_in_hand_tells_its_place_and_so_does_a_tile_gone_for_good() -> None:
    state = place(started(first=[facteur(1), RAIN, NIGHT]), facteur=at("C4"), tent=at("E2"))
    states, events = play(state, [(0, draw(1))])  # a Tent stands: Cléo chooses her shelter
    holding = states[-1]
    assert holding.phase == pb.PHASE_SHELTER
    assert ENGINE.recall(events[0], holding, Viewer.player(1)) == events[0]


def test_a_past_view_with_the_rain_in_hand_shows_its_place_holding_it() -> None:
    state = place(started(first=[facteur(1), RAIN, NIGHT]), facteur=at("C4"), tent=at("E2"))
    states, _ = play(state, [(0, draw(1)), (0, SHELTER), (1, draw(2))])
    then, now = states[1], states[-1]  # then: the Rain in Cléo's hand; now: back at place 1
    for viewer in viewers(2):
        seen = ENGINE.view(then, viewer)
        assert seen.drawn.place == 1 and not seen.lid[1].occupied
        recalled = ENGINE.recall_view(seen, then, now, viewer)
        assert recalled.drawn.place_hidden and recalled.drawn.place == 0
        assert recalled.drawn.tile.kind == pb.TILE_KIND_RAIN
        assert recalled.lid[1].occupied and not recalled.lid[1].HasField("tile")
        assert seen.drawn.place == 1  # the view given is untouched


def test_help_my_memory_keeps_the_places_told() -> None:
    state = place(started(pb.Options(open_history=True), first=[NIGHT, facteur(1), RAIN]), facteur=at("C4"))
    states, events = play(state, [(0, draw(2)), (1, draw(0))])
    for viewer in viewers(2):
        for event in events:
            assert ENGINE.recall(event, states[-1], viewer) == ENGINE.redact(event, viewer)


def test_the_admin_and_everyone_after_the_game_read_every_place() -> None:
    nights = [NIGHT] * 6
    state = place(started(first=[RAIN, *nights]), facteur=at("C4"))
    moves = [(0, draw(0)), *((seat % 2, draw(place_ + 1)) for seat, place_ in zip(range(1, 7), range(6), strict=True))]
    states, events = play(state, moves)
    over = states[-1]
    assert ENGINE.status(over).finished
    for viewer in viewers(2):
        for event in events:
            assert ENGINE.recall(event, over, viewer) == ENGINE.redact(event, viewer)
    for event in events:
        assert ENGINE.recall(event, states[3], Viewer.admin()) == event


def test_nobody_acts_while_a_drawn_tile_takes_effect() -> None:
    """Between the events of one move (a Rain without a choice of shelter, a Night), as
    a past version shows it: no seat to act, no legal move (Draw moves would tell
    which place the tile in hand came from)."""
    state = place(started(first=[RAIN, NIGHT]), facteur=at("C4"))
    states, _ = play(state, [(0, draw(0))])
    between = states[1]
    assert between.drawn is not None and between.phase == pb.PHASE_DRAW
    assert ENGINE.status(between).to_act == () and ENGINE.legal_commands(between, 0) == []


def test_a_rain_tile_drawn_at_one_place_or_another_reads_back_the_same() -> None:
    """Two worlds: the Rain lies at place 2 (world A) or place 4 (world B), with what A
    has at 4 lying at 2 in B; Cléo draws the Rain, Robin draws other tiles. Once it is
    back in the lid, every event and every past view reads back the same in both, for
    each seat and a spectator."""
    tiles_a = [NIGHT, facteur(1), RAIN, TENT, facteur(2)]
    tiles_b = [NIGHT, facteur(1), facteur(2), TENT, RAIN]
    moves_a = [(0, draw(2)), (1, draw(0)), (0, draw(1)), (0, walk(at("B4")))]
    moves_b = [(0, draw(4)), (1, draw(0)), (0, draw(1)), (0, walk(at("B4")))]
    a_states, a_events = play(place(started(first=tiles_a), facteur=at("C4")), moves_a)
    b_states, b_events = play(place(started(first=tiles_b), facteur=at("C4")), moves_b)
    assert a_events != b_events
    now_a, now_b = a_states[-1], b_states[-1]
    for viewer in viewers(2):
        assert ENGINE.view(now_a, viewer) == ENGINE.view(now_b, viewer)
        for event_a, event_b in zip(a_events, b_events, strict=True):
            assert ENGINE.recall(event_a, now_a, viewer) == ENGINE.recall(event_b, now_b, viewer)
        for then_a, then_b in zip(a_states, b_states, strict=True):
            view_a = ENGINE.recall_view(ENGINE.view(then_a, viewer), then_a, now_a, viewer)
            assert view_a == ENGINE.recall_view(ENGINE.view(then_b, viewer), then_b, now_b, viewer)
            assert ENGINE.legal_commands(then_a, 0) == ENGINE.legal_commands(then_b, 0)
