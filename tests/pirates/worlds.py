"""Two Pirates games a viewer cannot tell apart, round after round.

World A is a recorded random game. World B deals every round differently: the cards
the viewer never saw during that round (in other hands or the draw pile, never laid,
never drawn by the viewer) are swapped around among the places they held. The moves
are public, so a world in which the same moves would not be legal (with must_play, a
seat that drew showed that nothing fitted) is one the viewer can rule out: each
round keeps the first swap under which the round's moves are all legal, or its own
deal when none is found."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import RuleViolation, Viewer, fold
from engines.pirates import ENGINE
from engines.pirates.cards import PARROT, Card
from engines.pirates.state import PiratesState
from tests.pirates.helpers import seats

Move = tuple[int, pb.Command, int]  # seat, command, the seed of its random draws
Chooser = Callable[[PiratesState, int, list[pb.Command], random.Random], pb.Command]


@dataclass
class Recorded:
    """A game with each move's seat, command and random seed, and for each round the
    state just before its deal and the moves made in it."""

    events: list[pb.Event] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    before_deal: dict[int, PiratesState] = field(default_factory=dict)
    round_moves: dict[int, list[Move]] = field(default_factory=dict)

    def round_events(self, number: int) -> list[pb.Event]:
        """The round's events, from its deal to the end of the round."""
        start = next(i for i, e in enumerate(self.events) if e.round_dealt.round == number)
        ends = [i for i, e in enumerate(self.events) if e.round_won.round == number and e.HasField("round_won")]
        return self.events[start : ends[0] + 1] if ends else self.events[start:]


def play_recorded(options: pb.Options, count: int, seed: int, choose: Chooser) -> Recorded:
    rng = random.Random(seed)
    resolved = ENGINE.resolve_options(options, seats(count))
    recorded = Recorded()
    state = ENGINE.initial_state()
    for event in ENGINE.setup(resolved, seats(count), random.Random(seed)):
        if event.HasField("round_dealt"):
            recorded.before_deal[1] = state
        state = ENGINE.evolve(state, event)
        recorded.events.append(event)
    while not ENGINE.status(state).finished:
        seat = ENGINE.status(state).to_act[0]
        command = choose(state, seat, ENGINE.legal_commands(state, seat), rng)
        move = (seat, command, rng.randrange(2**32))
        recorded.moves.append(move)
        recorded.round_moves.setdefault(state.round, []).append(move)
        for event in ENGINE.decide(state, seat, command, random.Random(move[2])):
            if event.HasField("round_dealt"):
                recorded.before_deal[event.round_dealt.round] = state
            state = ENGINE.evolve(state, event)
            recorded.events.append(event)
    assert fold(ENGINE, recorded.events) == state
    return recorded


def unseen_in_round(events: list[pb.Event], viewer: Viewer) -> Counter[Card]:
    """The cards of the round's deal (events[0]) that the viewer never saw during
    the round: in other hands or the draw pile, never laid, never drawn by the
    viewer (and not turned up during the deal). Parrots stay where they are: the
    four are alike, so swapping them among themselves changes nothing, and telling
    which of them a player laid is more bookkeeping than it is worth; every other
    card is unique."""
    dealt = events[0].round_dealt
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


def other_deal(deal: pb.Event, unseen: Counter[Card], rng: random.Random, *, pairs_only: bool = False) -> pb.Event:
    """The deal with the unseen cards swapped around among the places they held (all
    of them shuffled, or with `pairs_only` two of them exchanged)."""
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
    if pairs_only and len(slots) >= 2:
        slots = rng.sample(slots, 2)
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


def legal_in(before_deal: PiratesState, deal: pb.Event, moves: list[Move]) -> bool:
    """Whether the round's moves are all legal after `deal`."""
    state = ENGINE.evolve(before_deal, deal)
    for seat, command, decide_seed in moves:
        try:
            events = ENGINE.decide(state, seat, command, random.Random(decide_seed))
        except RuleViolation:
            return False
        for event in events:
            if event.HasField("round_won"):
                return True  # what follows is the next round's
            state = ENGINE.evolve(state, event)
    return True


def other_worlds(recorded: Recorded, viewer: Viewer, rng: random.Random, tries: int = 12) -> dict[int, pb.Event]:
    """World B's deal of every round (its own when no swap keeps the moves legal)."""
    deals: dict[int, pb.Event] = {}
    for number, before in recorded.before_deal.items():
        events = recorded.round_events(number)
        deal, moves = events[0], recorded.round_moves.get(number, [])
        unseen = unseen_in_round(events, viewer)
        deals[number] = deal
        for attempt in range(tries):  # a whole shuffle first, then single exchanges
            candidate = other_deal(deal, unseen, rng, pairs_only=attempt >= tries // 2)
            if legal_in(before, candidate, moves):
                deals[number] = candidate
                break
    return deals
