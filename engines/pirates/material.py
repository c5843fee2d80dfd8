"""What the cards and ships of Pirates & Compagnie look like, for renderers: the four
colours with their stickers, the kinds of card, the deck, the ships
(seeds/pirates/material.json, cards.json and sea_lanes.json)."""

from __future__ import annotations

from collections import Counter

from ludotheque.pirates.v1 import material_pb2
from ludotheque.text.v1.description_pb2 import Description

from engines.data import load_json
from engines.pirates.cards import COLOUR_NAMES, COLOURS, DECK, DEFAULT_ISLAND_DISTANCE, HAND_SIZE, KIND_NAMES, MAX_SEATS


def material() -> material_pb2.Material:
    looks = load_json("pirates", "material.json")
    counts = Counter(card.kind for card in DECK)
    result = material_pb2.Material(
        deck=[card.to_proto() for card in DECK], hand_size=HAND_SIZE, island_distance=DEFAULT_ISLAND_DISTANCE
    )
    for colour in COLOURS:
        name = COLOUR_NAMES[colour]
        result.colours.add(
            colour=colour, name=Description(key=f"pirates.colour.{name}"), sticker=name, rgb=looks["colours"][name]
        )
    for kind, name in KIND_NAMES.items():
        result.card_kinds.add(
            kind=kind,
            name=Description(key=f"pirates.card_kind.{name}"),
            effect=Description(key=f"pirates.card_kind.{name}.effect"),
            sticker=looks["stickers"].get(name, ""),
            count=counts[kind],
        )
    ships = looks["ships"]
    if len(ships) < MAX_SEATS:
        raise ValueError(f"seeds/pirates/material.json: one ship colour per seat, {MAX_SEATS} at least")
    for seat, rgb in enumerate(ships[:MAX_SEATS]):
        result.ships.add(seat=seat, rgb=rgb)
    return result
