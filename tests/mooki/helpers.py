"""Building Mooki Island situations for tests: rigged deals and scripted games."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import SeatInfo
from engines.mooki import ENGINE
from engines.mooki.cards import CARDS, FAMILIES, Face, FamilyId
from engines.mooki.data import DATA
from engines.mooki.proof import discard as discard  # the commands, as the property suite builds them
from engines.mooki.proof import draw as draw
from engines.mooki.proof import place as place
from engines.mooki.rules import star_values
from engines.mooki.state import MookiState, PileCard

SUN, MOON, FOSSIL, SEASHELL, LEAF = FAMILIES


def mooki(family: FamilyId) -> Face:
    return Face(pb.FACE_KIND_MOOKI, family)


def legendary(family: FamilyId) -> Face:
    return Face(pb.FACE_KIND_LEGENDARY, family)


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
