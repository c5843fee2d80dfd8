"""Mooki Island: one test per rule of the rulebooks (see seeds/mooki/RULES.md)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import InvalidSetup, RuleViolation, SeatInfo, Viewer, fold
from engines.mooki import ENGINE
from engines.mooki.cards import CARDS, FAMILY_NAMES, SPIDER, Face, load_cards, parse_face
from engines.mooki.data import DATA
from engines.mooki.state import MookiState, PileCard, Placed
from tests.mooki.helpers import (
    FOSSIL,
    LEAF,
    MOON,
    SEASHELL,
    SUN,
    Play,
    a_card,
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

TWO = [SeatInfo(), SeatInfo()]


def new_state(seed: int = 1, seats: list[SeatInfo] = TWO, options: pb.Options | None = None) -> MookiState:
    resolved = ENGINE.resolve_options(options or pb.Options(), seats)
    return fold(ENGINE, ENGINE.setup(resolved, seats, random.Random(seed)))


def rigged(top0: PileCard, top1: PileCard) -> MookiState:
    """A deal whose piles show `top0` and `top1`, the other cards under them."""
    rest = [oriented(c, CARDS[c][0]) for c in range(36) if c not in (top0.card_id, top1.card_id)]
    return ENGINE.evolve(ENGINE.initial_state(), deal_event([[top0, *rest[:17]], [top1, *rest[17:]]]))


# --- set-up ------------------------------------------------------------------------


def test_the_36_cards_show_the_rulebook_faces() -> None:
    faces = Counter(face for card in CARDS for face in card)
    assert len(CARDS) == 36
    assert faces[SPIDER] == 7
    for family in (SUN, MOON, FOSSIL, SEASHELL, LEAF):
        assert faces[mooki(family)] == 12
        assert faces[legendary(family)] == 1
    assert all((card[0] != card[1] and card[0].family != card[1].family) or SPIDER in card for card in CARDS)


def test_every_card_pairs_its_faces_as_the_french_guide_says() -> None:
    """A drawn card offers "two Mookies of different families, a Mooki and a
    Legendary, or a Mooki and a Spider"."""
    mooki_and = {pb.FACE_KIND_MOOKI, pb.FACE_KIND_LEGENDARY, pb.FACE_KIND_SPIDER}
    for first, second in CARDS:
        assert pb.FACE_KIND_MOOKI in (first.kind, second.kind) and {first.kind, second.kind} <= mooki_and
        assert first.family != second.family or SPIDER in (first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [("spider", "spider"), ("sun", "sun"), ("legendary sun", "legendary moon"), ("legendary leaf", "spider")],
)
def test_the_card_loader_refuses_a_pair_the_guide_does_not_name(first: str, second: str) -> None:
    """Faces moved between cards keep the totals right; the pairs still must be the
    guide's. Card 0 takes the two faces, the other cards give them up."""
    raw = [dict(card) for card in DATA["cards.json"]["cards"]]
    wanted = [parse_face(first), parse_face(second)]
    faces = [[parse_face(f) for f in card["faces"]] for card in raw]
    given_up = list(faces[0])
    for face in wanted:  # take each wanted face from another card, giving it one of card 0's faces
        donor = next(i for i in range(1, len(raw)) if face in faces[i])
        faces[donor][faces[donor].index(face)] = given_up.pop()
    faces[0] = wanted
    for card, pair in zip(raw, faces, strict=True):
        card["faces"] = [_face_name(face) for face in pair]
    with pytest.raises(ValueError, match=r"card 0 .* not a pair the French guide names"):
        load_cards(raw)


def _face_name(face: Face) -> str:
    if face == SPIDER:
        return "spider"
    name = FAMILY_NAMES[face.family]
    return f"legendary {name}" if face.kind == pb.FACE_KIND_LEGENDARY else name


def test_setup_shuffles_all_cards_into_two_equal_piles_with_one_face_up() -> None:
    state = new_state(seed=7)
    assert [len(p) for p in state.piles] == [18, 18]
    assert sorted(c.card_id for p in state.piles for c in p) == list(range(36))
    for pile in state.piles:
        for card in pile:
            assert {card.shown, card.hidden} == set(CARDS[card.card_id])
    assert new_state(seed=7) == state
    assert new_state(seed=8) != state
    flipped = sum(card.shown == CARDS[card.card_id][1] for p in state.piles for card in p)
    assert 0 < flipped < 36  # cards land on either face


def test_mooki_island_is_for_exactly_two_players() -> None:
    for count in (1, 3):
        with pytest.raises(InvalidSetup):
            ENGINE.resolve_options(pb.Options(), [SeatInfo()] * count)


def test_the_youngest_player_starts() -> None:
    state = new_state(seats=[SeatInfo(age=38), SeatInfo(age=6)])
    assert state.youngest_seat == 1
    assert ENGINE.status(state).to_act == (1,)


def test_a_designated_youngest_seat_starts_when_ages_are_not_given() -> None:
    assert ENGINE.status(new_state()).to_act == (0,)
    state = new_state(options=pb.Options(youngest_seat=1))
    assert ENGINE.status(state).to_act == (1,)


def test_the_designated_youngest_seat_wins_over_ages() -> None:
    state = new_state(seats=[SeatInfo(age=38), SeatInfo(age=6)], options=pb.Options(youngest_seat=0))
    assert state.youngest_seat == 0


def test_equal_ages_make_the_first_seat_the_youngest() -> None:
    assert new_state(seats=[SeatInfo(age=7), SeatInfo(age=7)]).youngest_seat == 0


@pytest.mark.parametrize(("ages", "youngest"), [((None, 30), 1), ((30, None), 0), ((None, None), 0)])
def test_only_the_ages_given_name_the_youngest(ages: tuple[int | None, int | None], youngest: int) -> None:
    """A seat without an age (a bot, say) is not taken for the youngest when the
    other seat gives one."""
    state = new_state(seats=[SeatInfo(age=age) for age in ages])
    assert state.youngest_seat == youngest
    assert ENGINE.status(state).to_act == (youngest,)


@pytest.mark.parametrize(
    "options",
    [
        pb.Options(youngest_seat=2),
        pb.Options(star_table=9),  # type: ignore[arg-type]
        pb.Options(custom_stars=[pb.TrophyStars(family=SUN, stars=0)]),
        pb.Options(custom_stars=[pb.TrophyStars(stars=3)]),
        pb.Options(custom_stars=[pb.TrophyStars(family=SUN, stars=3), pb.TrophyStars(family=SUN, stars=4)]),
    ],
)
def test_invalid_options_are_refused(options: pb.Options) -> None:
    with pytest.raises(InvalidSetup):
        ENGINE.resolve_options(options, TWO)


def test_custom_stars_override_the_table() -> None:
    state = new_state(options=pb.Options(custom_stars=[pb.TrophyStars(family=LEAF, stars=5)]))
    assert state.stars == (3, 4, 3, 2, 5)


# --- a turn ------------------------------------------------------------------------


def test_drawing_takes_the_top_card_and_reveals_the_next_one() -> None:
    state = new_state()
    top, below = state.piles[1][0], state.piles[1][1]
    state, events = run(state, 0, draw(1))
    assert state.drawn is not None and state.drawn.card == top
    assert len(state.piles[1]) == 17
    assert events[0].card_drawn.revealed == below.shown.to_proto()
    assert ENGINE.view(state, Viewer.player(1)).piles[1].top == below.shown.to_proto()


def test_the_drawer_sees_both_faces_and_the_others_only_the_shown_one() -> None:
    state, _ = run(new_state(), 0, draw(0))
    assert state.drawn is not None
    mine = ENGINE.view(state, Viewer.player(0)).drawn
    theirs = ENGINE.view(state, Viewer.player(1)).drawn
    public = ENGINE.view(state, Viewer.spectator()).drawn
    assert mine.hidden == state.drawn.card.hidden.to_proto()
    assert not theirs.HasField("hidden") and not public.HasField("hidden")
    assert theirs.shown == mine.shown == state.drawn.card.shown.to_proto()


def test_a_kept_mooki_goes_on_top_of_your_own_collection() -> None:
    first = a_card(mooki(SUN))
    state = rigged(first, a_card(mooki(SUN), besides=[first]))
    state, _ = run(state, 0, draw(0))
    state, _ = run(state, 0, place(pb.SIDE_SHOWN))
    assert [p.face for p in state.collections[0]] == [mooki(SUN)]
    assert state.collections[1] == ()
    assert ENGINE.status(state).to_act == (1,)


def test_the_hidden_face_may_be_kept_instead() -> None:
    state = rigged(oriented(7, mooki(FOSSIL)), a_card(mooki(SUN)))  # Fossil over Legendary Leaf
    state, _ = run(state, 0, draw(0))
    state, _ = run(state, 0, place(pb.SIDE_HIDDEN))
    assert state.collections[0][-1] == Placed(7, legendary(LEAF), mooki(FOSSIL), 0, pb.SIDE_HIDDEN)


def test_a_kept_spider_goes_on_top_of_the_opponents_collection() -> None:
    state = rigged(a_card(mooki(MOON), besides=[oriented(0, SPIDER)]), oriented(0, SPIDER))
    state, _ = run(state, 0, draw(0))
    state, _ = run(state, 0, place(pb.SIDE_SHOWN))  # seat 0: a Moon Mooki
    state, _ = run(state, 1, draw(1))
    state, _ = run(state, 1, place(pb.SIDE_SHOWN))  # seat 1: the Spider onto seat 0
    assert [p.face for p in state.collections[0]] == [mooki(MOON), SPIDER]
    assert state.collections[1] == ()
    assert ENGINE.view(state, Viewer.player(1)).collections[0].top == SPIDER.to_proto()


def test_only_the_top_card_of_a_collection_is_visible_during_the_game() -> None:
    state = new_state()
    for _ in range(3):
        for seat in (0, 1):
            state, _ = run(state, seat, draw(0))
            state, _ = run(state, seat, place(pb.SIDE_SHOWN))
    for viewer in (Viewer.player(0), Viewer.player(1), Viewer.spectator()):
        collections = ENGINE.view(state, viewer).collections
        assert sum(c.size for c in collections) == 6
        assert all(len(c.faces) == 0 for c in collections)
    assert sum(len(c.faces) for c in ENGINE.view(state, Viewer.admin()).collections) == 6


@pytest.mark.parametrize(
    ("commands", "seat", "command", "code"),
    [
        ([], 1, draw(0), "not_your_turn"),
        ([], 0, place(pb.SIDE_SHOWN), "nothing_drawn"),
        ([], 0, draw(2), "unknown_pile"),
        ([draw(0)], 0, draw(1), "already_drawn"),
        ([draw(0)], 0, place(pb.SIDE_UNSPECIFIED), "unknown_side"),
        ([draw(0)], 1, place(pb.SIDE_SHOWN), "not_your_turn"),
        ([], 0, discard(SUN), "wrong_phase"),
        ([], 0, pb.Command(), "unknown_command"),
    ],
)
def test_illegal_moves_are_refused_with_their_rule(
    commands: list[pb.Command], seat: int, command: pb.Command, code: str
) -> None:
    state = new_state()
    for earlier in commands:
        state, _ = run(state, ENGINE.status(state).to_act[0], earlier)
    with pytest.raises(RuleViolation) as refused:
        ENGINE.decide(state, seat, command, random.Random(0))
    assert refused.value.code == code
    assert refused.value.message


def test_an_empty_pile_cannot_be_drawn_from() -> None:
    plays = [Play(1, mooki(SUN)), Play(1, mooki(MOON))]
    state, _ = play_script(deal_event(rig(plays)), commands_for(plays))
    emptied = replace(state, piles=((), state.piles[1]))
    with pytest.raises(RuleViolation) as refused:
        ENGINE.decide(emptied, 0, draw(0), random.Random(0))
    assert refused.value.code == "empty_pile"


# --- the end -----------------------------------------------------------------------


def test_the_game_ends_once_the_last_card_of_a_pile_is_placed() -> None:
    # 18 turns from the left pile: it empties on the 18th draw.
    plays = [Play(0, mooki(SUN if i % 2 == 0 else MOON)) for i in range(18)]
    state, _ = play_script(deal_event(rig(plays)), commands_for(plays)[:-1])
    assert state.phase == pb.PHASE_PLACE and state.piles[0] == ()  # drawn, not yet placed
    assert not ENGINE.status(state).finished
    state, events = run(state, 1, place(pb.SIDE_SHOWN))
    assert [e.WhichOneof("kind") for e in events][:2] == ["card_placed", "trophies_awarded"]
    assert ENGINE.status(state).finished
    assert len(state.piles[1]) == 18  # the other pile's cards are never played


def test_trophies_go_to_the_majority_legendaries_count_two_and_ties_give_nothing() -> None:
    # Seat 0: Legendary Sun (2) + Moon; seat 1: 2 Sun Mookies + Moon; ends in 4 turns.
    plays = [
        Play(0, legendary(SUN)),
        Play(0, mooki(SUN)),
        Play(0, mooki(MOON)),
        Play(0, mooki(SUN)),
        Play(0, mooki(FOSSIL)),
        Play(0, mooki(MOON)),
    ]
    state, _ = finish(plays)
    scoring = state.scoring
    assert scoring is not None
    assert scoring.counts[0] == (2, 2)  # Sun: the legendary counts 2 -> tie, nobody
    assert scoring.winners[0] is None
    assert scoring.counts[1] == (1, 1) and scoring.winners[1] is None
    assert scoring.counts[2] == (1, 0) and scoring.winners[2] == 0
    assert scoring.winners[3] is None and scoring.counts[3] == (0, 0)  # nobody has any


def _short(plays: list[Play]) -> list[list[PileCard]]:
    """Piles where the left one holds exactly the cards of `plays`."""
    return rig(plays, left_size=len(plays))


def finish(plays: list[Play], youngest_seat: int = 0) -> tuple[MookiState, list[pb.Event]]:
    return play_script(deal_event(_short(plays), youngest_seat=youngest_seat), commands_for(plays))


def test_the_player_with_more_spiders_chooses_a_trophy_to_give_back() -> None:
    # Seat 0 wins Sun and Moon, and gets a Spider from seat 1.
    plays = [Play(0, mooki(SUN)), Play(0, SPIDER), Play(0, mooki(MOON)), Play(0, mooki(FOSSIL))]
    state, _ = finish(plays)
    assert state.phase == pb.PHASE_DISCARD_TROPHY
    assert ENGINE.status(state).to_act == (0,)
    assert state.trophies[0] == (SUN, MOON)
    assert [c.discard_trophy.family for c in ENGINE.legal_commands(state, 0)][:2] == [SUN, MOON]
    with pytest.raises(RuleViolation) as refused:
        ENGINE.decide(state, 0, discard(LEAF), random.Random(0))
    assert refused.value.code == "not_your_trophy"
    with pytest.raises(RuleViolation):
        ENGINE.decide(state, 1, discard(FOSSIL), random.Random(0))
    state, _ = run(state, 0, discard(MOON))  # the player's own choice, not the cheapest
    assert state.trophies == ((SUN,), (FOSSIL,))
    assert state.result is not None and state.result.stars == (3, 3)


def test_the_automatic_choice_gives_back_the_trophy_with_fewest_stars() -> None:
    plays = [Play(0, mooki(SUN)), Play(0, SPIDER), Play(0, mooki(MOON)), Play(0, mooki(FOSSIL))]
    state, _ = finish(plays)
    state, events = run(state, 0, discard(auto=True))
    assert events[0].trophy_discarded == pb.TrophyDiscarded(seat=0, family=SUN, auto=True)


def test_a_single_trophy_goes_back_without_asking() -> None:
    plays = [Play(0, mooki(SUN)), Play(0, SPIDER), Play(0, mooki(MOON)), Play(0, mooki(MOON))]
    state, events = finish(plays)
    assert state.phase == pb.PHASE_FINISHED
    assert any(e.HasField("trophy_discarded") and e.trophy_discarded.auto for e in events)
    assert state.trophies == ((), ())


@pytest.mark.parametrize(
    "plays",
    [
        [Play(0, SPIDER), Play(0, SPIDER), Play(0, mooki(MOON)), Play(0, mooki(SUN))],  # equal Spiders
        [Play(0, mooki(SUN)), Play(0, SPIDER), Play(0, mooki(MOON)), Play(0, mooki(MOON))],  # one trophy
        [Play(0, SPIDER), Play(0, mooki(SUN)), Play(0, mooki(MOON)), Play(0, mooki(SUN))],  # no trophy
        [Play(0, mooki(SUN)), Play(0, SPIDER), Play(0, mooki(MOON)), Play(0, mooki(FOSSIL)), Play(0, mooki(LEAF))],
    ],
    ids=["equal-spiders", "one-trophy", "no-trophy", "a-choice-made"],
)
def test_nobody_is_offered_a_trophy_to_give_back_unless_there_is_a_choice(plays: list[Play]) -> None:
    """Between the events of the last moves (as ReplayGame shows a version), the game
    waits for nobody, and no trophy can be given back, but while the penalised
    player chooses among two or more."""
    state, history = finish(plays)
    if state.phase == pb.PHASE_DISCARD_TROPHY:  # the last case: seat 0 chooses among Sun, Moon and Leaf
        state, events = run(state, 0, discard(MOON))
        history += events
    assert ENGINE.status(state).finished
    placed_last = max(i for i, e in enumerate(history) if e.HasField("card_placed"))
    for cut in range(placed_last + 2, len(history)):  # from the trophies awarded to the end
        between = fold(ENGINE, history[:cut])
        if between.phase == pb.PHASE_DISCARD_TROPHY:  # only until the one trophy is chosen
            assert between.discarded is None and len(between.trophies[ENGINE.status(between).to_act[0]]) > 1
            continue
        assert ENGINE.status(between).to_act == ()
        for seat in (0, 1):
            assert ENGINE.legal_commands(between, seat) == []
            for command in (discard(auto=True), *(discard(family) for family in (SUN, MOON, FOSSIL, SEASHELL, LEAF))):
                with pytest.raises(RuleViolation):
                    ENGINE.decide(between, seat, command, random.Random(0))


def test_equal_spiders_cost_nobody_a_trophy() -> None:
    plays = [Play(0, SPIDER), Play(0, SPIDER), Play(0, mooki(MOON)), Play(0, mooki(SUN))]
    state, _ = finish(plays)
    assert state.scoring is not None and state.scoring.penalised_seat is None
    assert state.phase == pb.PHASE_FINISHED and state.trophies == ((MOON,), (SUN,))


def test_more_spiders_but_no_trophy_costs_nothing() -> None:
    # Seat 1 starts: a Spider onto seat 0; then a Sun Mooki each: a tie, no trophy.
    plays = [Play(0, SPIDER), Play(0, mooki(SUN)), Play(0, mooki(SUN))]
    state, _ = finish(plays, youngest_seat=1)
    assert state.scoring is not None
    assert state.scoring.spiders == (1, 0) and state.scoring.penalised_seat is None
    assert state.discarded is None
    assert state.result is not None and state.result.stars == (0, 0) and state.result.winner == 1


def test_most_stars_wins() -> None:
    plays = [Play(0, mooki(MOON)), Play(0, mooki(SUN)), Play(0, mooki(MOON)), Play(0, mooki(FOSSIL))]
    state, _ = finish(plays)  # seat 0: Moon (4); seat 1: Sun + Fossil (6)
    assert state.result is not None and state.result.winner == 1 and not state.result.won_by_age
    status = ENGINE.status(state)
    assert status.winners == (1,) and status.scores == (4, 6)
    assert status.summary == "{1} wins with 6 stars to 4."


@pytest.mark.parametrize("youngest", [0, 1])
def test_the_youngest_player_wins_a_tie_in_stars(youngest: int) -> None:
    # Sun (3 stars) against Fossil (3 stars).
    first = [Play(0, mooki(SUN)), Play(0, mooki(FOSSIL))]
    state, _ = finish(first, youngest_seat=youngest)
    assert state.result is not None
    assert state.result.stars == (3, 3)
    assert state.result.winner == youngest and state.result.won_by_age


def test_nothing_is_legal_after_the_end() -> None:
    state, _ = finish([Play(0, mooki(SUN)), Play(0, mooki(FOSSIL))])
    for seat in (0, 1):
        assert ENGINE.legal_commands(state, seat) == []
        with pytest.raises(RuleViolation) as refused:
            ENGINE.decide(state, seat, draw(1), random.Random(0))
        assert refused.value.code == "game_over"


def test_collections_are_shown_sorted_out_once_the_game_is_over() -> None:
    state, _ = finish([Play(0, mooki(SUN)), Play(0, mooki(FOSSIL))])
    view = ENGINE.view(state, Viewer.spectator())
    assert [list(c.faces) for c in view.collections] == [[mooki(SUN).to_proto()], [mooki(FOSSIL).to_proto()]]
    assert view.result.winner == state.result.winner  # type: ignore[union-attr]
