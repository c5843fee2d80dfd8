"""The Pirates & Compagnie deck and sea lanes, loaded from seeds/pirates/
(engines/pirates/data.py), and what fits on what."""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple, TypeAlias

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.encoded import Shared
from engines.pirates.data import DATA

ColourId: TypeAlias = pb.Colour.ValueType
KindId: TypeAlias = pb.CardKind.ValueType

COLOURS: tuple[ColourId, ...] = (pb.COLOUR_FLOWER, pb.COLOUR_SQUARE, pb.COLOUR_CIRCLE, pb.COLOUR_STAR)
COLOUR_NAMES = {
    pb.COLOUR_FLOWER: "flower",
    pb.COLOUR_SQUARE: "square",
    pb.COLOUR_CIRCLE: "circle",
    pb.COLOUR_STAR: "star",
}
KIND_NAMES = {
    pb.CARD_KIND_PIRATE: "pirate",
    pb.CARD_KIND_SAILBOAT: "sailboat",
    pb.CARD_KIND_BOTTLE: "bottle",
    pb.CARD_KIND_SLEEPING_PIRATE: "sleeping_pirate",
    pb.CARD_KIND_PARROT: "parrot",
}
SPECIAL_KINDS: tuple[KindId, ...] = (
    pb.CARD_KIND_SAILBOAT,
    pb.CARD_KIND_BOTTLE,
    pb.CARD_KIND_SLEEPING_PIRATE,
    pb.CARD_KIND_PARROT,
)
PIRATE_VALUES = range(1, 10)
HAND_SIZE = 5
MIN_SEATS, MAX_SEATS = 2, 4


class Card(NamedTuple):
    """A card's face: CARD_KIND_*, COLOUR_* (unspecified for a Parrot) and the pirate
    (1 to 9; 0 for a special). Tuples sort by kind, colour, then pirate."""

    kind: KindId
    colour: ColourId
    value: int

    @property
    def is_pirate(self) -> bool:
        return self.kind == pb.CARD_KIND_PIRATE

    @property
    def is_parrot(self) -> bool:
        return self.kind == pb.CARD_KIND_PARROT

    def to_proto(self) -> pb.Card:
        return pb.Card(kind=self.kind, colour=self.colour, value=self.value)

    @staticmethod
    def from_proto(card: pb.Card) -> Card:
        return CARDS.of(card)

    def __str__(self) -> str:
        colour = COLOUR_NAMES.get(self.colour, "?").capitalize()
        if self.is_pirate:
            return f"{colour} {self.value}"
        if self.is_parrot:
            return "Parrot"
        return f"{colour} {KIND_NAMES.get(self.kind, '?').replace('_', ' ')}"


PARROT = Card(pb.CARD_KIND_PARROT, pb.COLOUR_UNSPECIFIED, 0)
# One shared instance per card, found by its encoding (engines/encoded.py).
CARDS: Shared[pb.Card, Card] = Shared(pb.Card, lambda card: Card(card.kind, card.colour, card.value))


def parse_card(raw: dict[str, object]) -> Card:
    kind = next((k for k, name in KIND_NAMES.items() if name == raw["kind"]), None)
    if kind is None:
        raise ValueError(f"unknown card kind {raw['kind']!r}")
    colour_name = raw.get("colour")
    colour = next((c for c, name in COLOUR_NAMES.items() if name == colour_name), pb.COLOUR_UNSPECIFIED)
    if colour_name is not None and colour == pb.COLOUR_UNSPECIFIED:
        raise ValueError(f"unknown colour {colour_name!r}")
    value = raw.get("value", 0)
    if not isinstance(value, int):
        raise ValueError(f"a card's value is a number, not {value!r}")
    return Card(kind, colour, value)


def expected_deck() -> Counter[Card]:
    """The rulebook's 52 cards under our decisions (RULES.md, decisions 1 and 2)."""
    deck: Counter[Card] = Counter()
    for colour in COLOURS:
        deck.update(Card(pb.CARD_KIND_PIRATE, colour, value) for value in PIRATE_VALUES)
        deck.update(Card(kind, colour, 0) for kind in SPECIAL_KINDS if kind != pb.CARD_KIND_PARROT)
    deck[PARROT] = 4
    return deck


def load_deck() -> tuple[Card, ...]:
    """The 52 cards, sorted, checked against the rulebook's totals."""
    cards = tuple(sorted(parse_card(raw) for raw in DATA["cards.json"]["cards"]))
    if Counter(cards) != expected_deck():
        raise ValueError("seeds/pirates/cards.json does not match the rulebook's 36 pirate cards and 16 specials")
    return cards


def load_island_distance() -> int:
    spaces = DATA["sea_lanes.json"]["spaces_to_island"]
    if not isinstance(spaces, int) or spaces < 1:
        raise ValueError("seeds/pirates/sea_lanes.json: spaces_to_island must be a positive number")
    return spaces


DECK = load_deck()
DEFAULT_ISLAND_DISTANCE = load_island_distance()


def fits(card: Card, top: Card, announced: ColourId) -> bool:
    """Whether `card` may be laid on `top`. A Parrot goes on anything but a Parrot;
    on a Parrot, only the colour it asked for; otherwise the same colour, the same
    pirate, or the same special (the same illustration)."""
    if card.is_parrot:
        return not top.is_parrot
    if top.is_parrot:
        return card.colour == announced
    if card.colour == top.colour:
        return True
    if card.is_pirate:
        return top.is_pirate and card.value == top.value
    return card.kind == top.kind
