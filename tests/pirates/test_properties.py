"""Pirates & Compagnie's own property tests, besides the suite every game passes
(tests/engines/test_properties.py, from engines/pirates/proof.py): its rounds end as
the rules say, even when players draw whenever allowed; its bots sail to the island;
and a two-worlds test of its deals, which the suite's two-worlds check of every move
cannot change."""

from __future__ import annotations

import random

import pytest
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st
from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import Viewer, fold
from engines.pirates import ENGINE
from engines.pirates.bots import BOTS
from engines.pirates.cards import SPECIAL_KINDS
from engines.pirates.proof import EVENTS_PER_ROUND, MAX_REBUILDS, inventory, lively
from engines.pirates.state import PiratesState
from tests.pirates.helpers import seats
from tests.pirates.worlds import other_worlds, play_recorded
from tests.support.engine_properties import PlayedGame, check_random_game, replay_in_two_worlds, spec

SPEC = spec("pirates")

seat_counts = st.integers(min_value=2, max_value=4)
options = st.builds(
    pb.Options,
    island_distance=st.integers(min_value=1, max_value=2),  # short games: the rules repeat every round
    removed_specials=st.lists(st.sampled_from(SPECIAL_KINDS), unique=True, max_size=4),
    open_hands=st.booleans(),
    ohe_variant=st.booleans(),
    bottle_chain=st.sampled_from(list(pb.BottleChain.values())),
    bottle_follow_up=st.sampled_from(list(pb.BottleFollowUp.values())),
    next_round_starter=st.sampled_from(list(pb.NextRoundStarter.values())),
    must_play=st.booleans(),
    must_answer_bottle=st.booleans(),
    must_lay_after_bottle=st.booleans(),
    rebuilds_per_round=st.integers(min_value=0, max_value=MAX_REBUILDS),  # 0: the default, 3
)
seeds = st.integers(min_value=0, max_value=2**32)

# From the hypothesis profile (tests/conftest.py). A Pirates game is a few hundred
# moves, each checked against every viewer and some eighty commands: a fraction of
# the profile's examples keeps this module near half a minute in the ci profile.
EXAMPLES = settings().max_examples


def stubborn(state: PiratesState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
    """A player who never lays a card while the rules let them draw or end their turn
    instead, and never calls "ohé!": the player who would make a round last for ever."""
    passing = [command for command in legal if not command.HasField("play")]
    if passing:
        return passing[0]
    return rng.choice([command for command in legal if not command.play.call_ohe] or legal)


def check_rounds(played: PlayedGame) -> None:
    """A round ends only when a hand is empty (ROUND_END_LAST_CARD), or when the draw
    pile ran out after its last allowed rebuild (ROUND_END_PILE_EXHAUSTED, won by the
    fewest cards); and within EVENTS_PER_ROUND events."""
    start = 0
    for index, event in enumerate(played.events):
        assert isinstance(event, pb.Event)
        if not event.HasField("round_won"):
            continue
        assert index - start <= EVENTS_PER_ROUND
        start = index
        won, state = event.round_won, played.states[index]
        assert list(won.hand_sizes) == [len(hand) for hand in state.hands]
        if won.end == pb.ROUND_END_LAST_CARD:
            assert state.hands[won.seat] == ()
        else:
            assert won.end == pb.ROUND_END_PILE_EXHAUSTED
            assert state.options is not None and state.rebuilds == state.options.rebuilds_per_round
            assert len(state.hands[won.seat]) == min(won.hand_sizes)


@settings(max_examples=max(EXAMPLES // 2, 10))
@given(options=options, count=seat_counts, seed=seeds, uniform=st.booleans())
def test_many_random_games_end_conserve_the_52_cards_and_replay(
    options: pb.Options, count: int, seed: int, uniform: bool
) -> None:
    played = check_random_game(SPEC, options, seats(count), seed, None if uniform else lively, every_step=False)
    assert sum(inventory(played.states[-1]).values()) == 52
    check_rounds(played)


@settings(max_examples=max(EXAMPLES // 2, 10))
@given(options=options, count=seat_counts, seed=seeds, data=st.data())
def test_every_game_ends_even_when_players_draw_whenever_allowed(
    options: pb.Options, count: int, seed: int, data: st.DataObject
) -> None:
    """Adversarial play: some seats (one, several or all) draw or end their turn
    whenever the rules allow and never call "ohé!"; the others play at random.
    Every round still ends, within its bound, as the rules say."""
    stubborn_seats = data.draw(st.sets(st.integers(min_value=0, max_value=count - 1), min_size=1))

    def choose(state: PiratesState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
        return stubborn(state, seat, legal, rng) if seat in stubborn_seats else rng.choice(legal)

    played = check_random_game(SPEC, options, seats(count), seed, choose, every_step=False)
    check_rounds(played)


@settings(max_examples=max(EXAMPLES // 8, 10))
@given(seed=seeds, count=seat_counts, data=st.data())
def test_bots_play_legal_moves_to_the_island(seed: int, count: int, data: st.DataObject) -> None:
    bots = [data.draw(st.sampled_from(sorted(BOTS))) for _ in range(count)]

    def choose(state: PiratesState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
        command = BOTS[bots[seat]](state, seat, rng)
        assert command in legal
        return command

    played = check_random_game(SPEC, pb.Options(island_distance=2), seats(count), seed, choose, every_step=False)
    final: PiratesState = played.states[-1]
    assert final.winner is not None and final.ships[final.winner] == 2


@settings(max_examples=max(EXAMPLES // 2, 10))
@given(options=options, count=seat_counts, seed=seeds, data=st.data())
def test_redacted_events_are_the_same_in_worlds_the_viewer_cannot_tell_apart(
    options: pb.Options, count: int, seed: int, data: st.DataObject
) -> None:
    """The deals, which the suite's two-worlds check of every move
    (tests/engines/test_properties.py) cannot change: it decides both worlds with the
    same randomness, so they share every round's deal. Play a random game (world A).
    World B deals every round otherwise: the cards the viewer never saw during the
    round (other hands, the draw pile) swapped around, keeping the moves legal
    (tests/pirates/worlds.py). Replay the same moves in B: the viewer's redacted
    events and views must be identical, in every round and with every option
    (must_play and its kin included)."""
    viewer_seat = data.draw(st.sampled_from([*range(count), None]))
    viewer = Viewer.spectator() if viewer_seat is None else Viewer.player(viewer_seat)
    recorded = play_recorded(options, count, seed, lively)
    deals_b = other_worlds(recorded, viewer, random.Random(seed))
    started, deal = recorded.events[:2]

    def in_world_b(event: Message) -> Message:
        assert isinstance(event, pb.Event)
        if not event.HasField("round_dealt"):
            return event
        other = deals_b[event.round_dealt.round]
        assert ENGINE.redact(other, viewer) == ENGINE.redact(event, viewer)
        return other

    state_a = fold(ENGINE, [started, deal])
    state_b = fold(ENGINE, [started, deals_b[1]])
    assert ENGINE.redact(deals_b[1], viewer) == ENGINE.redact(deal, viewer)
    _, _, admin_differs = replay_in_two_worlds(ENGINE, state_a, state_b, recorded.moves, viewer, in_world_b)
    same_deals = all(deals_b[e.round_dealt.round] == e for e in recorded.events if e.HasField("round_dealt"))
    if same_deals:
        assert not admin_differs, "the same deals and moves must give the same events"


@pytest.mark.parametrize("must_play", [False, True])
def test_the_other_world_really_differs_for_a_player_in_every_round(must_play: bool) -> None:
    """The two-worlds construction must swap something in most rounds, the later
    ones and must_play games included."""
    rounds = differs = 0
    for seed in range(12):
        options = pb.Options(island_distance=2, must_play=must_play, must_answer_bottle=must_play)
        recorded = play_recorded(options, 3, seed, lively)
        deals_b = other_worlds(recorded, Viewer.player(0), random.Random(seed))
        for event in recorded.events:
            if event.HasField("round_dealt"):
                rounds += 1
                differs += deals_b[event.round_dealt.round] != event
    assert rounds >= 30 and differs >= 0.6 * rounds  # measured: 29 of 35 rounds, 23 of 35 with must_play
