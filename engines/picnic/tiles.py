"""The tiles, loaded from seeds/picnic/tiles.json (engines/picnic/data.py): which lie
in the lid for a given set of options. The counts are the project's own: the
rulebook gives none."""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.encoded import Shared
from engines.picnic.data import DATA

TileKindId: TypeAlias = pb.TileKind.ValueType
TileBackId: TypeAlias = pb.TileBack.ValueType

KIND_BY_NAME = {
    "facteur": pb.TILE_KIND_FACTEUR,
    "friend": pb.TILE_KIND_FRIEND,
    "rain": pb.TILE_KIND_RAIN,
    "tent": pb.TILE_KIND_TENT,
    "night": pb.TILE_KIND_NIGHT,
    "dragon": pb.TILE_KIND_DRAGON,
}
BACK_BY_NAME = {"plain": pb.TILE_BACK_PLAIN, "envelope": pb.TILE_BACK_ENVELOPE}
_KIND_TEXT = {
    pb.TILE_KIND_FACTEUR: "Facteur Souris {value}",
    pb.TILE_KIND_FRIEND: "Friend {value}",
    pb.TILE_KIND_RAIN: "Rain",
    pb.TILE_KIND_TENT: "Tent",
    pb.TILE_KIND_NIGHT: "Night",
    pb.TILE_KIND_DRAGON: "Dragon {value}",
}


class Tile(NamedTuple):
    """A tile: its face (kind and value: spaces or arrows) and its back."""

    kind: TileKindId
    value: int
    back: TileBackId

    def to_proto(self) -> pb.Tile:
        return pb.Tile(kind=self.kind, value=self.value, back=self.back)

    @staticmethod
    def from_proto(tile: pb.Tile) -> Tile:
        return TILES.of(tile)

    def __str__(self) -> str:
        return tile_text(self.kind, self.value)


# One shared instance per tile, and per tile in the lid with its back, found by its
# encoding (engines/encoded.py).
TILES: Shared[pb.Tile, Tile] = Shared(pb.Tile, lambda tile: Tile(tile.kind, tile.value, tile.back))
LID_TILES: Shared[pb.LidTile, tuple[TileBackId, Tile]] = Shared(
    pb.LidTile, lambda lid_tile: (lid_tile.back, TILES.of(lid_tile.tile))
)


def tile_text(kind: TileKindId, value: int) -> str:
    return _KIND_TEXT.get(kind, "?").format(value=value)


def _group(name: str) -> tuple[Tile, ...]:
    tiles: list[Tile] = []
    for entry in DATA["tiles.json"][name]:
        tile = Tile(KIND_BY_NAME[entry["kind"]], int(entry.get("value", 0)), BACK_BY_NAME[entry["back"]])
        tiles += [tile] * int(entry["count"])
    return tuple(tiles)


BASE, TENTS, TRAP_RAIN, COLD_DRAGON = (_group(name) for name in ("base", "tents", "trap_rain", "cold_dragon"))


def lid_tiles(options: pb.Options) -> list[Tile]:
    """Every tile that goes into the lid for these options, unshuffled."""
    tiles = list(BASE)
    if not options.no_tents:
        tiles += TENTS
    if options.trap_rain:
        tiles += TRAP_RAIN
    if options.cold_dragon:
        tiles += COLD_DRAGON
    return tiles
