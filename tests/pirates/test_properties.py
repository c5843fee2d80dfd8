"""Pirates & Compagnie property tests: random games with 2, 3 and 4 seats and random
options through legal_commands (see tests/support/engine_properties.py for what is
checked at every step), and a two-worlds test that redacted events reveal nothing a
viewer may not know."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import Viewer, fold
from engines.pirates import ENGINE
from engines.pirates.bots import BOTS
from engines.pirates.cards import DECK, PARROT, SPECIAL_KINDS, Card
from engines.pirates.state import PiratesState
from tests.pirates.helpers import command_universe, inventory, perturb, rulebook_outcome, seats
from tests.support.engine_properties import (
    GameSpec,
    check_bots_see_only_their_seat,
    check_random_game,
    replay_in_two_worlds,
)

# A random player draws often and rounds run long; 3000 events a round is far beyond
# anything seen (the longest in 10,000 random games was under 900).
EVENTS_PER_ROUND = 3000

SPEC = GameSpec(
    engine=ENGINE,
    inventory=inventory,
    command_universe=command_universe,
    perturb=perturb,
    max_events=EVENTS_PER_ROUND * 2 * 4,  # at most 2 spaces to sail, 4 seats: at most 7 rounds
    outcome=rulebook_outcome,
)

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
)
seeds = st.integers(min_value=0, max_value=2**32)

# From the hypothesis profile (tests/conftest.py). A Pirates game is a few hundred
# moves, each checked against every viewer and some eighty commands: a fraction of
# the profile's examples keeps this module near half a minute in the ci profile.
EXAMPLES = settings().max_examples


def lively(state: PiratesState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
    """A random player who lays a card three times out of four when one is legal: a
    uniformly random player draws so often that rounds last hundreds of moves."""
    plays = [command for command in legal if command.HasField("play")]
    if plays and rng.random() < 0.75:
        return rng.choice(plays)
    return rng.choice(legal)


def first_seat(data: st.DataObject, count: int) -> int:
    return data.draw(st.integers(min_value=0, max_value=count - 1))


@settings(max_examples=max(EXAMPLES // 4, 10))
@given(options=options, count=seat_counts, seed=seeds, data=st.data())
def test_random_games_keep_every_rule(options: pb.Options, count: int, seed: int, data: st.DataObject) -> None:
    options.first_seat = first_seat(data, count)
    check_random_game(SPEC, options, seats(count), seed, lively)


@settings(max_examples=max(EXAMPLES // 2, 10))
@given(options=options, count=seat_counts, seed=seeds, uniform=st.booleans())
def test_many_random_games_end_conserve_the_52_cards_and_replay(
    options: pb.Options, count: int, seed: int, uniform: bool
) -> None:
    played = check_random_game(SPEC, options, seats(count), seed, None if uniform else lively, every_step=False)
    assert sum(inventory(played.states[-1]).values()) == 52


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


@settings(max_examples=max(EXAMPLES // 8, 10))
@given(options=options, count=seat_counts, seed=seeds, data=st.data())
def test_bots_decide_only_on_what_their_seat_knows(
    options: pb.Options, count: int, seed: int, data: st.DataObject
) -> None:
    """A bot given two worlds its seat cannot tell apart makes the same move."""
    played = check_random_game(SPEC, options, seats(count), seed, lively, every_step=False)
    check_bots_see_only_their_seat(SPEC, played.states, 12, lambda: random.Random(data.draw(seeds)))


Move = tuple[int, pb.Command, int]  # seat, command, the seed of its random draws


def _first_round(events: list[pb.Event]) -> list[pb.Event]:
    ends = [i for i, e in enumerate(events) if e.HasField("round_won")]
    return events[: ends[0] + 1] if ends else events


def _unseen_in_first_round(all_events: list[pb.Event], viewer: Viewer) -> Counter[Card]:
    """The cards of the first deal that the viewer never saw during the first round:
    in other hands or the draw pile, never laid, never drawn by the viewer (and not
    turned up during the deal). Parrots stay where they are: the four are alike, so
    swapping them among themselves changes nothing, and telling which of them a
    player laid is more bookkeeping than it is worth; every other card is unique."""
    events = _first_round(all_events)
    dealt = events[1].round_dealt
    unseen: Counter[Card] = Counter(Card.from_proto(c) for c in dealt.draw_pile)
    unseen -= Counter(Card.from_proto(c) for c in dealt.turned_under)
    for hand in dealt.hands:
        if not (dealt.open_hands or viewer.is_seat(hand.seat)):
            unseen.update(Card.from_proto(c) for c in hand.cards)
    del unseen[PARROT]
    for event in events:
        if event.HasField("card_played"):
            unseen -= Counter([Card.from_proto(event.card_played.card)])
        drawn = event.cards_drawn
        if event.HasField("cards_drawn") and (drawn.open_hands or viewer.is_seat(drawn.seat)):
            unseen -= Counter(Card.from_proto(c) for c in drawn.cards)
    return unseen


def _other_world(deal: pb.Event, unseen: Counter[Card], rng: random.Random) -> pb.Event:
    """The deal with the unseen cards swapped around among the places they held."""
    world = pb.Event()
    world.CopyFrom(deal)
    dealt = world.round_dealt
    slots: list[tuple[int | None, int]] = []  # (seat, index) in a hand, or (None, index) in the draw pile
    remaining = Counter(unseen)
    for hand in dealt.hands:
        for index, card in enumerate(hand.cards):
            if remaining[Card.from_proto(card)] > 0:
                remaining[Card.from_proto(card)] -= 1
                slots.append((hand.seat, index))
    for index, card in enumerate(dealt.draw_pile[: len(dealt.draw_pile) - len(dealt.turned_under)]):
        if remaining[Card.from_proto(card)] > 0:
            remaining[Card.from_proto(card)] -= 1
            slots.append((None, index))
    swapped = [_slot(dealt, slot) for slot in slots]
    rng.shuffle(swapped)
    for (seat, index), moved in zip(slots, swapped, strict=True):
        target = dealt.draw_pile[index] if seat is None else dealt.hands[seat].cards[index]
        target.CopyFrom(moved.to_proto())
    for hand in dealt.hands:  # hands are dealt sorted
        ordered = sorted(Card.from_proto(c) for c in hand.cards)
        del hand.cards[:]
        hand.cards.extend(c.to_proto() for c in ordered)
    return world


def _slot(dealt: pb.RoundDealt, slot: tuple[int | None, int]) -> Card:
    seat, index = slot
    return Card.from_proto(dealt.draw_pile[index] if seat is None else dealt.hands[seat].cards[index])


def _without_must_play(options: pb.Options) -> pb.Options:
    # must_play makes drawing legal or not depending on the hand: in the other world
    # another seat's hidden hand may hold a card that fits, and the same moves would
    # not be legal there. Every other option is played.
    options.must_play = False
    return options


no_must_play = options.map(_without_must_play)


@settings(max_examples=max(EXAMPLES // 2, 10))
@given(options=no_must_play, count=seat_counts, seed=seeds, data=st.data())
def test_redacted_events_are_the_same_in_worlds_the_viewer_cannot_tell_apart(
    options: pb.Options, count: int, seed: int, data: st.DataObject
) -> None:
    """Play a random game (world A). Build world B from A's first deal by swapping
    around the cards the viewer never saw during the first round (other hands and
    the draw pile). Replay the same moves in B: the viewer's redacted events and
    views must be identical, while the admin's differ whenever a swap happened."""
    viewer_seat = data.draw(st.sampled_from([*range(count), None]))
    viewer = Viewer.spectator() if viewer_seat is None else Viewer.player(viewer_seat)
    events, moves = play_recorded(options, count, seed)
    started, deal = events[:2]
    world_b = _other_world(deal, _unseen_in_first_round(events, viewer), random.Random(seed))

    state_a = fold(ENGINE, [started, deal])
    state_b = fold(ENGINE, [started, world_b])
    assert ENGINE.redact(deal, viewer) == ENGINE.redact(world_b, viewer)
    _, _, admin_differs = replay_in_two_worlds(ENGINE, state_a, state_b, moves, viewer)
    if deal == world_b:
        assert not admin_differs, "the same deal and moves must give the same events"


def play_recorded(options: pb.Options, count: int, seed: int) -> tuple[list[pb.Event], list[Move]]:
    """A random game (lively), with each move's seat, command and random seed."""
    rng = random.Random(seed)
    resolved = ENGINE.resolve_options(options, seats(count))
    events = ENGINE.setup(resolved, seats(count), random.Random(seed))
    state = fold(ENGINE, events)
    moves: list[Move] = []
    while not ENGINE.status(state).finished:
        seat = ENGINE.status(state).to_act[0]
        command = lively(state, seat, ENGINE.legal_commands(state, seat), rng)
        decide_seed = rng.randrange(2**32)
        moves.append((seat, command, decide_seed))
        for event in ENGINE.decide(state, seat, command, random.Random(decide_seed)):
            state = ENGINE.evolve(state, event)
            events.append(event)
    assert fold(ENGINE, events) == state
    return events, moves


def test_the_other_world_really_differs_for_a_player() -> None:
    """The two-worlds construction must swap something in most games."""
    differs = 0
    for seed in range(20):
        events, _ = play_recorded(pb.Options(island_distance=1), 3, seed)
        world = _other_world(events[1], _unseen_in_first_round(events, Viewer.player(0)), random.Random(seed))
        differs += world != events[1]
    assert differs >= 15


def test_perturb_really_changes_hidden_things() -> None:
    """The perturbation behind the view checks must not be a no-op."""
    state = fold(ENGINE, ENGINE.setup(ENGINE.resolve_options(pb.Options(), seats(3)), seats(3), random.Random(3)))
    changed = [perturb(state, Viewer.player(0), random.Random(i)) != state for i in range(20)]
    assert sum(changed) >= 18
    assert all(perturb(state, Viewer.player(0), random.Random(i)).hands[0] == state.hands[0] for i in range(20))
    assert perturb(state, Viewer.admin(), random.Random(0)) == state
    assert inventory(perturb(state, Viewer.spectator(), random.Random(0))) == Counter(DECK)
