"""The strong bots (engines/search.py, engines/<kind>/strong.py): the same state and
seed give the same move (verify runs bots again), every move is legal, and the move
is the same in two worlds that differ only in what the seat may not know (the
proof's perturb builds them, as for the views), at the real budget where the test is
about that promise, at a few iterations where it is about behaviour through whole games."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from ludotheque.mooki.v1 import mooki_pb2 as mooki_pb

from engines.contract import SeatInfo, Viewer
from engines.mooki import strong as mooki_strong
from engines.mooki.cards import CARDS
from engines.mooki.state import PileCard
from engines.registry import GAMES
from engines.search import SearchBot
from tests.support.engine_properties import quick

STRONG = [kind for kind in sorted(GAMES) if "strong" in GAMES[kind].engine.bots]


def test_a_strong_bot_is_offered_where_it_plays_no_worse_than_greedy() -> None:
    """Pirates' search lost to greedy (docs/GAMES.md): it is not offered as the strong robot."""
    assert {"mooki", "picnic"} <= set(STRONG) and "pirates" not in STRONG


def positions(kind: str, seed: int, count: int, seats: int = 2) -> list[tuple[Any, int]]:
    """About `count` states of a game of greedy bots where a seat must choose among
    several moves, with that seat."""
    engine = GAMES[kind].engine
    rng = random.Random(seed)
    infos = [SeatInfo(age=8 + seat) for seat in range(seats)]
    state = engine.initial_state()
    for event in engine.setup(engine.resolve_options(engine.options_type(), infos), infos, rng):
        state = engine.evolve(state, event)
    found = []
    while not (status := engine.status(state)).finished:
        seat = status.to_act[0]
        if len(engine.legal_commands(state, seat)) > 1:
            found.append((state, seat))
        for event in engine.decide(state, seat, engine.bots["greedy"](state, seat, rng), rng):
            state = engine.evolve(state, event)
    return found[:: max(1, len(found) // count)][:count]


@pytest.mark.parametrize("kind", STRONG)
def test_the_same_state_and_seed_give_the_same_move(kind: str) -> None:
    bot = GAMES[kind].engine.bots["strong"]
    for state, seat in positions(kind, seed=3, count=3):
        assert bot(state, seat, random.Random(7)) == bot(state, seat, random.Random(7))


@pytest.mark.parametrize("kind", STRONG)
def test_it_never_reads_what_its_seat_may_not_know(kind: str) -> None:
    """At the real budget: the move chosen in a world perturbed in what the seat cannot
    know is the move chosen in the real one, with the same seed."""
    game = GAMES[kind]
    assert game.proof.perturb is not None
    bot = game.engine.bots["strong"]
    differed = 0
    for index, (state, seat) in enumerate(positions(kind, seed=11, count=4)):
        other = game.proof.perturb(state, Viewer.player(seat), random.Random(index))
        differed += other != state
        assert bot(state, seat, random.Random(index)) == bot(other, seat, random.Random(index))
    assert differed >= 2, "the worlds compared hardly differed"


@pytest.mark.parametrize("kind", STRONG)
def test_whole_games_of_strong_bots_play_legal_moves_to_the_end(kind: str) -> None:
    engine = GAMES[kind].engine
    bot = quick(engine.bots["strong"])
    for seed, seats in enumerate(range(engine.min_seats, min(engine.max_seats, 3) + 1)):
        rng = random.Random(seed)
        infos = [SeatInfo() for _ in range(seats)]
        state = engine.initial_state()
        for event in engine.setup(engine.resolve_options(engine.options_type(), infos), infos, rng):
            state = engine.evolve(state, event)
        for _ in range(5_000):
            status = engine.status(state)
            if status.finished:
                break
            seat = status.to_act[0]
            command = bot(state, seat, rng)
            assert command in engine.legal_commands(state, seat)
            for event in engine.decide(state, seat, command, rng):
                state = engine.evolve(state, event)
        assert engine.status(state).finished


def test_mooki_worlds_keep_what_the_seat_saw_and_deal_the_rest_from_the_catalogue() -> None:
    """The faces the seat saw stay; the cards of every world are the catalogue's 36,
    each once; the buried cards differ between two draws."""
    for state, seat in positions("mooki", seed=5, count=6):
        worlds = [mooki_strong.determinise(state, seat, random.Random(n)) for n in range(2)]
        for world in worlds:
            assert [pile[0].shown for pile in world.piles if pile] == [pile[0].shown for pile in state.piles if pile]
            assert [len(pile) for pile in world.piles] == [len(pile) for pile in state.piles]
            assert [[p.face for p in c] for c in world.collections] == [[p.face for p in c] for c in state.collections]
            cards = [card.card_id for pile in world.piles for card in pile]
            cards += [placed.card_id for collection in world.collections for placed in collection]
            cards += [world.drawn.card.card_id] if world.drawn is not None else []
            assert sorted(cards) == list(range(len(CARDS)))
            for pile in world.piles:
                assert all(sorted((card.shown, card.hidden)) == sorted(CARDS[card.card_id]) for card in pile)
            if state.drawn is not None and state.drawn.seat == seat:
                assert world.drawn is not None and world.drawn.card.hidden == state.drawn.card.hidden
        if sum(len(pile) for pile in state.piles) > 6:
            assert worlds[0].piles != worlds[1].piles


def test_mooki_never_reads_the_face_the_other_seat_turned_down() -> None:
    """A card the other seat kept as shown hides its other face from this seat: two
    states differing only there (the card swapped for another with the same face up,
    from the buried cards) give the same move."""
    bot = GAMES["mooki"].engine.bots["strong"]
    swapped = 0
    for state, seat in positions("mooki", seed=9, count=12):
        other = 1 - seat
        for owner, collection in enumerate(state.collections):
            for position, placed in enumerate(collection):
                if placed.placed_by != other or placed.side != mooki_pb.SIDE_SHOWN:
                    continue
                twin = _buried_twin(state, placed.face, placed.other_face)
                if twin is None:
                    continue
                pile_index, depth, card = twin
                up = card.shown if card.shown == placed.face else card.hidden
                down = card.hidden if up == card.shown else card.shown
                collections = [list(c) for c in state.collections]
                collections[owner][position] = placed._replace(card_id=card.card_id, other_face=down)
                piles = [list(p) for p in state.piles]
                piles[pile_index][depth] = PileCard(placed.card_id, placed.face, placed.other_face)
                changed = replace(
                    state,
                    collections=tuple(tuple(c) for c in collections),
                    piles=tuple(tuple(p) for p in piles),
                )
                assert bot(state, seat, random.Random(2)) == bot(changed, seat, random.Random(2))
                swapped += 1
                break
            else:
                continue
            break
    assert swapped >= 2, "too few states to swap a turned-down face in"


def _buried_twin(state: Any, face: Any, other_face: Any) -> tuple[int, int, Any] | None:
    """A buried pile card with `face` on one side and not `other_face` on the other."""
    for pile_index, pile in enumerate(state.piles):
        for depth, card in enumerate(pile[1:], start=1):
            faces = (card.shown, card.hidden)
            if face in faces and sorted(faces) != sorted((face, other_face)):
                return pile_index, depth, card
    return None


def test_a_search_bot_with_one_move_plays_it_without_searching() -> None:
    """The budget goes to choices: a forced move is returned at once (the search's
    determinise is never asked)."""
    engine = GAMES["mooki"].engine
    strong = engine.bots["strong"]
    assert isinstance(strong, SearchBot)

    def refuse(state: Any, seat: int, rng: random.Random) -> Any:
        raise AssertionError("searched a forced move")

    bot = replace(strong, game=replace(strong.game, determinise=refuse, legal=lambda state, seat: ["only"]))
    assert bot(engine.initial_state(), 0, random.Random(1)) == "only"
