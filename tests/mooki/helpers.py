"""Building Mooki Island situations for tests: rigged deals and scripted games."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import cast

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import SeatInfo, Viewer
from engines.mooki import ENGINE
from engines.mooki.cards import CARDS, FAMILIES, Face, FamilyId
from engines.mooki.data import DATA
from engines.mooki.rules import star_values
from engines.mooki.state import Drawn, MookiState, PileCard

SUN, MOON, FOSSIL, SEASHELL, LEAF = FAMILIES


def mooki(family: FamilyId) -> Face:
    return Face(pb.FACE_KIND_MOOKI, family)


def legendary(family: FamilyId) -> Face:
    return Face(pb.FACE_KIND_LEGENDARY, family)


def draw(pile: int) -> pb.Command:
    return pb.Command(draw=pb.Draw(pile=pile))


def place(side: pb.Side.ValueType) -> pb.Command:
    return pb.Command(place=pb.Place(side=side))


def discard(family: FamilyId = pb.FAMILY_UNSPECIFIED, auto: bool = False) -> pb.Command:
    return pb.Command(discard_trophy=pb.DiscardTrophy(family=family, auto=auto))


def oriented(card_id: int, shown: Face) -> PileCard:
    """Card `card_id` lying with `shown` up."""
    first, second = CARDS[card_id]
    if first == shown:
        return PileCard(card_id, first, second)
    if second == shown:
        return PileCard(card_id, second, first)
    raise ValueError(f"card {card_id} has no {shown} face")


def a_card(face: Face, *, besides: Sequence[PileCard] = ()) -> PileCard:
    """The first card with `face`, lying with it up (not one of `besides`)."""
    taken = {card.card_id for card in besides}
    card_id = next(c for c in range(len(CARDS)) if face in CARDS[c] and c not in taken)
    return oriented(card_id, face)


def deal_event(
    piles: Sequence[Sequence[PileCard]],
    *,
    youngest_seat: int = 0,
    star_table: pb.StarTable.ValueType = pb.STAR_TABLE_GUIDE,
) -> pb.Event:
    """A GameStarted event with the given piles (top card first)."""
    options = ENGINE.resolve_options(
        pb.Options(star_table=star_table, youngest_seat=youngest_seat),
        [SeatInfo(), SeatInfo()],
    )
    started = pb.GameStarted(
        options=options,
        stars=[pb.TrophyStars(family=f, stars=s) for f, s in zip(FAMILIES, star_values(options), strict=True)],
        youngest_seat=youngest_seat,
        first_seat=youngest_seat,
        data_digest=DATA.digest,
    )
    for pile in piles:
        started.piles.add(
            cards=[pb.DealtCard(card_id=c.card_id, shown=c.shown.to_proto(), hidden=c.hidden.to_proto()) for c in pile],
            size=len(pile),
            top=pile[0].shown.to_proto(),
        )
    return pb.Event(game_started=started)


@dataclass(frozen=True)
class Play:
    """One turn of a scripted game: draw from `pile`, keep `face` (on the `side` given)."""

    pile: int
    face: Face
    side: pb.Side.ValueType = pb.SIDE_SHOWN


def rig(plays: Sequence[Play], *, left_size: int = 18) -> list[list[PileCard]]:
    """Two piles in which `plays`, drawn in order, find the faces they keep. The left
    pile holds `left_size` cards, the right one the rest; unused cards go under the
    played ones."""
    assignment = _match_cards([play.face for play in plays])
    unused = set(range(len(CARDS))) - set(assignment)
    piles: list[list[PileCard]] = [[], []]
    for play, card_id in zip(plays, assignment, strict=True):
        card = oriented(card_id, play.face)
        if play.side == pb.SIDE_HIDDEN:
            card = PileCard(card_id, card.hidden, card.shown)
        piles[play.pile].append(card)
    if len(piles[0]) > left_size:
        raise ValueError("more plays from the left pile than it holds")
    for card_id in sorted(unused):
        first, second = CARDS[card_id]
        piles[0 if len(piles[0]) < left_size else 1].append(PileCard(card_id, first, second))
    return piles


def _match_cards(faces: Sequence[Face]) -> list[int]:
    """A distinct card for each face (a bipartite matching, by augmenting paths)."""
    owner: dict[int, int] = {}  # card id -> index in faces

    def assign(index: int, seen: set[int]) -> bool:
        for card_id in range(len(CARDS)):
            if faces[index] in CARDS[card_id] and card_id not in seen:
                seen.add(card_id)
                if card_id not in owner or assign(owner[card_id], seen):
                    owner[card_id] = index
                    return True
        return False

    for index in range(len(faces)):
        if not assign(index, set()):
            raise ValueError(f"not enough cards for these faces ({faces[index]})")
    chosen = {index: card_id for card_id, index in owner.items()}
    return [chosen[index] for index in range(len(faces))]


def commands_for(plays: Sequence[Play]) -> list[pb.Command]:
    commands = []
    for play in plays:
        commands += [draw(play.pile), place(play.side)]
    return commands


def run(state: MookiState, seat: int, command: pb.Command) -> tuple[MookiState, list[pb.Event]]:
    events = ENGINE.decide(state, seat, command, random.Random(0))
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, events


def play_script(deal: pb.Event, commands: Sequence[pb.Command]) -> tuple[MookiState, list[pb.Event]]:
    """Plays `commands` in turn order (whoever is to act plays the next one)."""
    state = ENGINE.evolve(ENGINE.initial_state(), deal)
    history = [deal]
    for command in commands:
        seat = ENGINE.status(state).to_act[0]
        state, events = run(state, seat, command)
        history += events
    return state, history


# --- what the property suite needs -------------------------------------------------


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


def command_universe(state: MookiState) -> list[pb.Command]:
    """Every Mooki move one could send, legal or not."""
    unknown_side = cast(pb.Side.ValueType, 9)  # a value the enum does not have
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
