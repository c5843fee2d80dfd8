"""The Mooki Island cards and trophies, loaded from seeds/mooki/ (engines/mooki/data.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, TypeAlias

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.mooki.data import DATA

FamilyId: TypeAlias = pb.Family.ValueType
FaceKindId: TypeAlias = pb.FaceKind.ValueType

FAMILIES: tuple[FamilyId, ...] = (
    pb.FAMILY_SUN,
    pb.FAMILY_MOON,
    pb.FAMILY_FOSSIL,
    pb.FAMILY_SEASHELL,
    pb.FAMILY_LEAF,
)
FAMILY_NAMES = {
    pb.FAMILY_SUN: "sun",
    pb.FAMILY_MOON: "moon",
    pb.FAMILY_FOSSIL: "fossil",
    pb.FAMILY_SEASHELL: "seashell",
    pb.FAMILY_LEAF: "leaf",
}
FAMILY_BY_NAME = {name: family for family, name in FAMILY_NAMES.items()}

CARD_COUNT = 36
PILE_COUNT = 2
SEAT_COUNT = 2


class Face(NamedTuple):
    """One printed face: FACE_KIND_* and FAMILY_* (FAMILY_UNSPECIFIED for a Spider)."""

    kind: FaceKindId
    family: FamilyId

    @property
    def is_spider(self) -> bool:
        return self.kind == pb.FACE_KIND_SPIDER

    @property
    def weight(self) -> int:
        """How many Mookies the face counts for in its family."""
        return 2 if self.kind == pb.FACE_KIND_LEGENDARY else 1

    def to_proto(self) -> pb.Face:
        return pb.Face(kind=self.kind, family=self.family)

    @staticmethod
    def from_proto(face: pb.Face) -> Face:
        # One shared instance per face: a live game holds 72 of them, and equal faces
        # are interchangeable (immutable, compared by value).
        key = (face.kind, face.family)
        known = _FACES.get(key)
        if known is None:
            known = Face(*key)
            if len(_FACES) < MAX_SHARED:  # a malformed log must not grow it without end
                _FACES[key] = known
        return known

    def __str__(self) -> str:
        if self.is_spider:
            return "Spider"
        name = FAMILY_NAMES.get(self.family, "?").capitalize()
        return f"Legendary {name}" if self.kind == pb.FACE_KIND_LEGENDARY else f"{name} Mooki"


SPIDER = Face(pb.FACE_KIND_SPIDER, pb.FAMILY_UNSPECIFIED)
MAX_SHARED = 1024
_FACES: dict[tuple[int, int], Face] = {}


def parse_face(text: str) -> Face:
    """ "sun", "legendary leaf" or "spider"."""
    words = text.split()
    if words == ["spider"]:
        return SPIDER
    if len(words) == 1 and words[0] in FAMILY_BY_NAME:
        return Face(pb.FACE_KIND_MOOKI, FAMILY_BY_NAME[words[0]])
    if len(words) == 2 and words[0] == "legendary" and words[1] in FAMILY_BY_NAME:
        return Face(pb.FACE_KIND_LEGENDARY, FAMILY_BY_NAME[words[1]])
    raise ValueError(f"unknown Mooki face {text!r}")


def pair_allowed(first: Face, second: Face) -> bool:
    """Whether one card may carry these two faces. The French guide names what a
    drawn card offers: "deux Mookies de familles différentes, un Mookie et un Mookie
    Légendaire, ou encore un Mookie et une terrible Araignée" — so every card has an
    ordinary Mooki, and its other face is a Mooki of another family, a Legendary
    or a Spider."""
    for mooki, other in ((first, second), (second, first)):
        if mooki.kind != pb.FACE_KIND_MOOKI:
            continue
        if other.kind in (pb.FACE_KIND_LEGENDARY, pb.FACE_KIND_SPIDER):
            return True
        if other.kind == pb.FACE_KIND_MOOKI and other.family != mooki.family:
            return True
    return False


def load_cards(raw: Sequence[Mapping[str, Any]] | None = None) -> tuple[tuple[Face, Face], ...]:
    """The 36 cards (seeds/mooki/cards.json, or `raw`: its "cards"), indexed by card
    id, checked against the rulebooks' totals and the French guide's pairs of faces."""
    raw = DATA["cards.json"]["cards"] if raw is None else raw
    cards = tuple((parse_face(c["faces"][0]), parse_face(c["faces"][1])) for c in raw)
    if [c["id"] for c in raw] != list(range(len(raw))):
        raise ValueError("seeds/mooki/cards.json: card ids must be 0, 1, 2... in order")
    for card_id, (first, second) in enumerate(cards):
        if not pair_allowed(first, second):
            raise ValueError(
                f"seeds/mooki/cards.json: card {card_id} ({first} / {second}) is not a pair the French guide names: "
                "two Mookies of different families, a Mooki and a Legendary, or a Mooki and a Spider"
            )
    faces = Counter(face for card in cards for face in card)
    expected = Counter({SPIDER: 7})
    for family in FAMILIES:
        expected[Face(pb.FACE_KIND_MOOKI, family)] = 12
        expected[Face(pb.FACE_KIND_LEGENDARY, family)] = 1
    if len(cards) != CARD_COUNT or faces != expected:
        raise ValueError("seeds/mooki/cards.json does not match the rulebook's 36 cards")
    return cards


def load_star_tables() -> dict[pb.StarTable.ValueType, tuple[int, ...]]:
    """StarTable value -> stars per family, indexed like FAMILIES."""
    tables = DATA["trophies.json"]["tables"]
    by_enum = {pb.STAR_TABLE_GUIDE: tables["guide"], pb.STAR_TABLE_ENGLISH_EXAMPLE: tables["english_example"]}
    return {table: tuple(int(stars[FAMILY_NAMES[f]]) for f in FAMILIES) for table, stars in by_enum.items()}


CARDS = load_cards()
STAR_TABLES = load_star_tables()


def family_index(family: FamilyId) -> int:
    """Position of a family in FAMILIES (and in per-family tuples)."""
    return family - pb.FAMILY_SUN
