"""What the property suite proves of Mooki Island (engines/registration.py's Proof),
from the rulebooks rather than from engines/mooki/rules.py: the 36 cards are all
somewhere, the game ends when the rulebooks say with the winner they say, which
commands one could send, which states a viewer cannot tell apart, and what a move
shows. Read by the tests only (tests/support/engine_properties.py), never by the rules."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from dataclasses import replace

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import Viewer
from engines.mooki.cards import FAMILIES, FamilyId
from engines.mooki.state import Drawn, MookiState, PileCard
from engines.registration import Move, Proof, unknown_value


def draw(pile: int) -> pb.Command:
    return pb.Command(draw=pb.Draw(pile=pile))


def place(side: pb.Side.ValueType) -> pb.Command:
    return pb.Command(place=pb.Place(side=side))


def discard(family: FamilyId = pb.FAMILY_UNSPECIFIED, auto: bool = False) -> pb.Command:
    return pb.Command(discard_trophy=pb.DiscardTrophy(family=family, auto=auto))


def rulebook_outcome(state: MookiState) -> tuple[int, ...] | None:
    """The rulebooks' end, counted here from the collections as at the table: None
    while the game goes on (a pile still has cards, a card is in hand, or the
    penalised player has yet to choose among two or more trophies), else the winner."""
    if not state.piles or state.drawn is not None or all(state.piles):
        return None
    counts = [[0, 0] for _ in FAMILIES]
    spiders = [0, 0]
    for seat, collection in enumerate(state.collections):
        for placed in collection:
            if placed.face.kind == pb.FACE_KIND_SPIDER:
                spiders[seat] += 1
            else:
                legendary = placed.face.kind == pb.FACE_KIND_LEGENDARY
                counts[FAMILIES.index(placed.face.family)][seat] += 2 if legendary else 1
    held: list[list[FamilyId]] = [[], []]
    for family, (first, second) in zip(FAMILIES, counts, strict=True):
        if first != second:
            held[0 if first > second else 1].append(family)
    if spiders[0] != spiders[1]:
        penalised = 0 if spiders[0] > spiders[1] else 1
        if len(held[penalised]) > 1:
            if state.discarded is None:
                return None  # the penalised player chooses which trophy goes back
            held[penalised].remove(state.discarded[1])
        else:
            held[penalised] = []
    stars = [sum(state.stars[FAMILIES.index(family)] for family in families) for families in held]
    if stars[0] == stars[1]:
        return (state.youngest_seat,)
    return (0 if stars[0] > stars[1] else 1,)


def inventory(state: MookiState) -> Counter[Hashable]:
    """Every card id wherever it is: each of the 36 must be there exactly once."""
    items: Counter[Hashable] = Counter()
    for pile in state.piles:
        items.update(card.card_id for card in pile)
    for collection in state.collections:
        items.update(placed.card_id for placed in collection)
    if state.drawn is not None:
        items[state.drawn.card.card_id] += 1
    return items


def command_universe(state: MookiState | None) -> list[pb.Command]:
    """Every Mooki move one could send, legal or not (the same in every state)."""
    unknown_side = unknown_value(pb.Side)
    commands = [draw(0), draw(1), draw(2), draw(7)]
    commands += [place(side) for side in (pb.SIDE_SHOWN, pb.SIDE_HIDDEN, pb.SIDE_UNSPECIFIED, unknown_side)]
    commands += [discard(family) for family in (pb.FAMILY_UNSPECIFIED, *FAMILIES)]
    commands += [discard(auto=True), pb.Command()]
    return commands


def _same_face_shown(card: PileCard, candidates: list[PileCard], rng: random.Random) -> tuple[PileCard, int | None]:
    """A card showing the same face as `card`: `card` itself, or one of
    `candidates` turned to show it. Returns it and its index in candidates."""
    options: list[tuple[PileCard, int | None]] = [(card, None)]
    for index, other in enumerate(candidates):
        for up, down in ((other.shown, other.hidden), (other.hidden, other.shown)):
            if up == card.shown:
                options.append((PileCard(other.card_id, up, down), index))
    return rng.choice(options)


def perturb(state: MookiState, viewer: Viewer, rng: random.Random) -> MookiState:
    """A state that differs from `state` only in what `viewer` cannot know: the order
    and faces of buried pile cards, the hidden face of each pile's top card, and the
    hidden face of a card another seat holds."""
    if viewer.is_admin or not state.piles:
        return state
    buried = [card for pile in state.piles for card in pile[1:]]
    rng.shuffle(buried)
    buried = [PileCard(c.card_id, c.hidden, c.shown) if rng.random() < 0.5 else c for c in buried]
    tops: list[PileCard | None] = []
    for pile in state.piles:
        if not pile:
            tops.append(None)
            continue
        card, index = _same_face_shown(pile[0], buried, rng)
        if index is not None:  # swap the top card with a buried twin
            original = pile[0]
            buried[index] = original
        tops.append(card)
    drawn = state.drawn
    if drawn is not None and not viewer.is_seat(drawn.seat):
        card, index = _same_face_shown(drawn.card, buried, rng)
        if index is not None:
            buried[index] = drawn.card
        drawn = Drawn(drawn.seat, drawn.pile, card)
    piles = []
    for pile, top in zip(state.piles, tops, strict=True):
        count = max(len(pile) - 1, 0)
        rest, buried = buried[:count], buried[count:]
        piles.append(tuple(([top] if top is not None else []) + rest))
    return replace(state, piles=tuple(piles), drawn=drawn)


def reveals(move: Move[MookiState, pb.Command], viewer: Viewer) -> Hashable:
    """What a move shows, as the rulebooks tell it. A draw turns up the next card of
    its pile for all ("Robin takes the Spider that was revealed when Victoria took her
    card"), and shows the drawer the other side ("after looking at both sides of the
    card"); placing shows everyone the side chosen ("choose one side"): news to them
    when it is the side that lay underneath. Nothing else is ever turned over: the end
    sorts the collections "on the same side. No flipping cards!"."""
    before, command = move.before, move.command
    if command.HasField("draw") and command.draw.pile < len(before.piles):
        pile = before.piles[command.draw.pile]
        turned_up = pile[1].shown if len(pile) > 1 else None
        return (turned_up, pile[0].hidden if viewer.is_seat(move.seat) and pile else None)
    drawn = before.drawn
    if command.HasField("place") and command.place.side == pb.SIDE_HIDDEN and drawn is not None:
        return None if viewer.is_seat(drawn.seat) else drawn.card.hidden
    return None


_STAR_TABLES = (pb.STAR_TABLE_UNSPECIFIED, pb.STAR_TABLE_GUIDE, pb.STAR_TABLE_ENGLISH_EXAMPLE)


def random_options(rng: random.Random, seats: int) -> pb.Options:
    """Either star table, and some families' stars set by hand."""
    options = pb.Options(star_table=rng.choice(_STAR_TABLES))
    for family in rng.sample(FAMILIES, rng.randint(0, len(FAMILIES))):
        options.custom_stars.add(family=family, stars=rng.randint(1, 9))
    return options


PROOF: Proof[MookiState, pb.Command] = Proof(
    inventory=inventory,
    command_universe=command_universe,
    perturb=perturb,
    reveals=reveals,
    outcome=rulebook_outcome,
    max_events=36 * 2 + 4,  # a draw and a place per card, then the scoring
    random_options=random_options,
)
