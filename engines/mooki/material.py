"""What Mooki Island's cards look like, for renderers: families with their colours,
the kinds of face, the star tables, the piles (seeds/mooki/material.json and the
deck of seeds/mooki/cards.json)."""

from __future__ import annotations

from collections import Counter

from ludotheque.mooki.v1 import material_pb2
from ludotheque.mooki.v1 import mooki_pb2 as pb
from ludotheque.text.v1.description_pb2 import Description

from engines.data import load_json
from engines.mooki.cards import CARDS, FAMILIES, FAMILY_NAMES, STAR_TABLES

_KIND_NAMES = {pb.FACE_KIND_MOOKI: "mooki", pb.FACE_KIND_LEGENDARY: "legendary", pb.FACE_KIND_SPIDER: "spider"}
_WEIGHTS = {pb.FACE_KIND_MOOKI: 1, pb.FACE_KIND_LEGENDARY: 2, pb.FACE_KIND_SPIDER: 0}
_TABLE_NAMES = {pb.STAR_TABLE_GUIDE: "guide", pb.STAR_TABLE_ENGLISH_EXAMPLE: "english_example"}


def material() -> material_pb2.Material:
    looks = load_json("mooki", "material.json")
    faces = Counter(face for card in CARDS for face in card)
    result = material_pb2.Material(card_count=len(CARDS))
    for family in FAMILIES:
        name = FAMILY_NAMES[family]
        result.families.add(
            family=family,
            name=Description(key=f"mooki.family.{name}"),
            rgb=looks["families"][name],
            mookies=sum(n for f, n in faces.items() if f.family == family and f.kind == pb.FACE_KIND_MOOKI),
            legendaries=sum(n for f, n in faces.items() if f.family == family and f.kind == pb.FACE_KIND_LEGENDARY),
        )
    for kind, name in _KIND_NAMES.items():
        result.face_kinds.add(
            kind=kind,
            name=Description(key=f"mooki.face_kind.{name}"),
            weight=_WEIGHTS[kind],
            count=sum(n for f, n in faces.items() if f.kind == kind),
            rgb=looks["spider"] if kind == pb.FACE_KIND_SPIDER else "",
        )
    for table, stars in STAR_TABLES.items():
        entry = result.star_tables.add(
            table=table, description=Description(key=f"mooki.star_table.{_TABLE_NAMES[table]}")
        )
        for family, count in zip(FAMILIES, stars, strict=True):
            entry.stars.add(family=family, stars=count)
    for index, name in enumerate(("left", "right")):
        result.piles.add(pile=index, name=Description(key=f"mooki.pile.{name}"))
    return result
