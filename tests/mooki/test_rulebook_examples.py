"""Every worked example of the Mooki Island rulebooks, reproduced exactly.

French guide (000_*.txt): "Un exemple de tour" (Cléo and Robin) and "Exemple de
décompte final" (Cléo 9 - Robin 3). English rulebook (001_*.txt): the example turn
(Victoria and Robin) and the final count (Victoria 6 - Robin 4), played as one game."""

from __future__ import annotations

import pytest
from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import Viewer
from engines.mooki import ENGINE
from engines.mooki.cards import CARDS, SPIDER, STAR_TABLES, Face
from engines.mooki.scoring import final_result, score, trophies_won
from engines.mooki.state import MookiState
from tests.mooki.helpers import (
    FOSSIL,
    LEAF,
    MOON,
    SEASHELL,
    SUN,
    Play,
    commands_for,
    deal_event,
    discard,
    draw,
    legendary,
    mooki,
    oriented,
    place,
    play_script,
    rig,
    run,
)

CLEO, ROBIN = 0, 1
VICTORIA = 0
GUIDE_STARS = (3, 4, 3, 2, 2)
ENGLISH_EXAMPLE_STARS = (3, 4, 3, 2, 3)


def test_french_example_turn() -> None:
    """Left pile shows a Spider, right pile a Fossil Mooki. Cléo takes the right card,
    finds the Legendary Leaf underneath and keeps it. Robin takes the Spider (a Sun
    Mooki underneath) and puts it on Cléo's collection, covering her Legendary."""
    spider_sun = oriented(0, SPIDER)
    fossil_leaf = oriented(7, mooki(FOSSIL))
    assert fossil_leaf.hidden == legendary(LEAF) and spider_sun.hidden == mooki(SUN)
    rest = [c for c in range(36) if c not in (0, 7)]
    left = [spider_sun, *(oriented(c, CARDS[c][0]) for c in rest[:17])]
    right = [fossil_leaf, *(oriented(c, CARDS[c][0]) for c in rest[17:])]
    state = ENGINE.evolve(ENGINE.initial_state(), deal_event([left, right], youngest_seat=CLEO))

    view = ENGINE.view(state, Viewer.player(CLEO))
    assert view.piles[0].top == SPIDER.to_proto() and view.piles[1].top == mooki(FOSSIL).to_proto()

    state, _ = run(state, CLEO, draw(1))
    assert ENGINE.view(state, Viewer.player(CLEO)).drawn.hidden == legendary(LEAF).to_proto()
    assert not ENGINE.view(state, Viewer.player(ROBIN)).drawn.HasField("hidden")
    state, _ = run(state, CLEO, place(pb.SIDE_HIDDEN))
    assert ENGINE.view(state, Viewer.player(ROBIN)).collections[CLEO].top == legendary(LEAF).to_proto()
    assert ENGINE.view(state, Viewer.player(ROBIN)).piles[1].top == right[1].shown.to_proto()  # a new card shows

    state, _ = run(state, ROBIN, draw(0))  # the Spider is still there
    assert ENGINE.view(state, Viewer.player(ROBIN)).drawn.hidden == mooki(SUN).to_proto()
    state, _ = run(state, ROBIN, place(pb.SIDE_SHOWN))

    seen = ENGINE.view(state, Viewer.player(CLEO)).collections[CLEO]
    assert seen.size == 2 and seen.top == SPIDER.to_proto() and not seen.faces  # she must remember the Legendary
    assert ENGINE.status(state).to_act == (CLEO,)


# Cléo: 5 Sun, 3 Moon, 1 Leaf, 2 Spiders; Robin: 3 Sun, 1 Legendary Moon, 4 Fossil,
# 2 Seashell, 3 Spiders. 12 turns each, Cléo first; the left pile runs out on turn 24.
CLEO_PLAYS = [mooki(SUN)] * 5 + [mooki(MOON)] * 3 + [mooki(LEAF)] + [SPIDER] * 3
ROBIN_PLAYS = [mooki(SUN)] * 3 + [legendary(MOON)] + [mooki(FOSSIL)] * 4 + [mooki(SEASHELL)] * 2 + [SPIDER] * 2


def interleave(first: list[Face], second: list[Face]) -> list[Face]:
    return [face for pair in zip(first, second, strict=True) for face in pair]


def french_final_game() -> tuple[MookiState, list[pb.Event]]:
    faces = interleave(CLEO_PLAYS, ROBIN_PLAYS)
    plays = [Play(1 if turn < 6 else 0, face) for turn, face in enumerate(faces)]
    return play_script(deal_event(rig(plays), youngest_seat=CLEO), commands_for(plays))


def test_french_final_count_on_the_numbers() -> None:
    counts = ((5, 3), (3, 2), (0, 4), (0, 2), (1, 0))  # Sun, Moon, Fossil, Seashell, Leaf
    scoring = score(counts, (2, 3))
    assert scoring.winners == (CLEO, CLEO, ROBIN, ROBIN, CLEO)
    assert scoring.penalised_seat == ROBIN
    trophies = [trophies_won(scoring, CLEO), tuple(f for f in trophies_won(scoring, ROBIN) if f != SEASHELL)]
    result = final_result(trophies, GUIDE_STARS, youngest_seat=CLEO)
    assert result.stars == (9, 3) and result.winner == CLEO


def test_french_final_count_played_out() -> None:
    state, _ = french_final_game()
    assert state.scoring is not None
    assert state.scoring.counts == ((5, 3), (3, 2), (0, 4), (0, 2), (1, 0))  # Robin's Legendary Moon counts 2
    assert state.scoring.spiders == (2, 3)
    assert state.trophies == ((SUN, MOON, LEAF), (FOSSIL, SEASHELL))
    assert ENGINE.status(state).to_act == (ROBIN,)  # Robin has more Spiders: he chooses
    state, _ = run(state, ROBIN, discard(SEASHELL))  # "il choisit sagement ... Coquillage"
    assert state.result is not None
    assert state.result.stars == (9, 3) and state.result.winner == CLEO
    assert ENGINE.status(state).summary == "{0} wins with 9 stars to 3."


def test_french_final_count_robins_automatic_choice_is_the_same() -> None:
    state, _ = french_final_game()
    state, events = run(state, ROBIN, discard(auto=True))
    assert events[0].trophy_discarded.family == SEASHELL
    assert state.result is not None and state.result.stars == (9, 3)


# English rulebook: Victoria (the younger) starts. She draws the Fossil Mooki with the
# Legendary Leaf underneath and keeps the Legendary; Robin draws the Spider revealed on
# that pile and puts it on her collection. At the end Victoria has 1 Sun, 1 Moon,
# 4 Fossil, 6 Leaf (the Legendary counts 2), 1 Seashell and 1 Spider; Robin 0 Sun,
# 3 Moon, 4 Fossil, 5 Leaf, 3 Seashell and 2 Spiders. 14 turns each fit only if Robin
# kept two Legendaries (Moon and Fossil); the right pile runs out on turn 28.
VICTORIA_LATER = [mooki(LEAF)] * 4 + [mooki(SUN), mooki(MOON)] + [mooki(FOSSIL)] * 4 + [mooki(SEASHELL)] + [SPIDER] * 2
ROBIN_LATER = (
    [legendary(MOON), mooki(MOON), legendary(FOSSIL)] + [mooki(FOSSIL)] * 2 + [mooki(LEAF)] * 5 + [mooki(SEASHELL)] * 3
)


def english_game(star_table: pb.StarTable.ValueType) -> tuple[MookiState, list[pb.Event]]:
    opening = [Play(1, legendary(LEAF), pb.SIDE_HIDDEN), Play(1, SPIDER)]
    later = interleave(VICTORIA_LATER, ROBIN_LATER)
    plays = opening + [Play(1 if turn < 8 else 0, face) for turn, face in enumerate(later)]
    piles = rig(plays)
    assert piles[1][0] == oriented(7, mooki(FOSSIL))  # the Fossil Mooki showing, the Legendary Leaf under it
    assert piles[1][1].shown == SPIDER  # the Spider revealed when Victoria takes her card
    return play_script(deal_event(piles, youngest_seat=VICTORIA, star_table=star_table), commands_for(plays))


def test_english_example_turn_and_final_count() -> None:
    state, history = english_game(pb.STAR_TABLE_ENGLISH_EXAMPLE)
    assert history[1].card_drawn.shown == mooki(FOSSIL).to_proto()
    assert history[1].card_drawn.revealed == SPIDER.to_proto()
    assert history[2].card_placed.face == legendary(LEAF).to_proto()
    assert history[4].card_placed.face == SPIDER.to_proto() and history[4].card_placed.collection_seat == VICTORIA
    assert state.scoring is not None
    assert state.scoring.counts == ((1, 0), (1, 3), (4, 4), (1, 3), (6, 5))
    assert state.scoring.spiders == (1, 2)
    assert state.scoring.winners == (VICTORIA, ROBIN, None, ROBIN, VICTORIA)
    state, _ = run(state, ROBIN, discard(SEASHELL))  # "He chooses to discard the Seashell Trophy"
    assert state.result is not None
    assert state.result.stars == (6, 4) and state.result.winner == VICTORIA  # "6 ... to 4. Victoria wins!"


def test_the_french_star_table_cannot_give_the_english_result() -> None:
    """Why star_table exists: with the guide's stars, Sun + Leaf is 5, not 6."""
    state, _ = english_game(pb.STAR_TABLE_GUIDE)
    state, _ = run(state, ROBIN, discard(SEASHELL))
    assert state.result is not None and state.result.stars == (5, 4)


@pytest.mark.parametrize(
    ("table", "expected"), [(pb.STAR_TABLE_GUIDE, GUIDE_STARS), (pb.STAR_TABLE_ENGLISH_EXAMPLE, ENGLISH_EXAMPLE_STARS)]
)
def test_star_tables(table: pb.StarTable.ValueType, expected: tuple[int, ...]) -> None:
    assert STAR_TABLES[table] == expected
    # The guide: "Chaque Trophée a une valeur en étoiles différente (de 2 à 4 étoiles)".
    assert all(2 <= stars <= 4 for stars in STAR_TABLES[table])
