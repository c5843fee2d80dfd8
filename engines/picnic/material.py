"""What the boards, tiles and pieces of Facteur Souris's picnic look like, for
renderers: each board's spaces as coordinates with its paths, the tiles of the box,
the friends and the other pieces with their colours (seeds/picnic/boards.json,
tiles.json and material.json)."""

from __future__ import annotations

import unicodedata

from ludotheque.picnic.v1 import material_pb2
from ludotheque.picnic.v1 import picnic_pb2 as pb
from ludotheque.text.v1.description_pb2 import Description

from engines.data import load_json
from engines.picnic.board import BOARD_NAMES, BOARDS, FRIEND_NAMES
from engines.picnic.tiles import BASE, COLD_DRAGON, TENTS, TRAP_RAIN, Tile

_TILE_KINDS = {
    pb.TILE_KIND_FACTEUR: "facteur",
    pb.TILE_KIND_FRIEND: "friend",
    pb.TILE_KIND_RAIN: "rain",
    pb.TILE_KIND_TENT: "tent",
    pb.TILE_KIND_NIGHT: "night",
    pb.TILE_KIND_DRAGON: "dragon",
}
_TERRAINS = {pb.TERRAIN_MEADOW: "meadow", pb.TERRAIN_ROCK: "rock", pb.TERRAIN_POND: "pond"}


def slug(name: str) -> str:
    """A friend's name as a message key: "Écureuil" -> "ecureuil"."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return "".join(c for c in folded.lower() if c.isalnum())


def material() -> material_pb2.Material:
    looks = load_json("picnic", "material.json")
    result = material_pb2.Material(path_rgb=looks["path"])
    for board_id, board in BOARDS.items():
        entry = result.boards.add(board=board_id, name=Description(key=f"picnic.board.{BOARD_NAMES[board_id]}"))
        entry.layout.CopyFrom(board.layout)
        for cell in board.cells:
            row, column = divmod(cell, board.width)
            entry.positions.add(cell=cell, row=row, column=column)
            for other in board.path_neighbours[cell]:
                if cell < other:
                    entry.paths.add(start=cell, end=other)
        result.night_spaces = board.night_spaces
    for kind, name in _TILE_KINDS.items():
        result.tile_kinds.add(
            kind=kind,
            name=Description(key=f"picnic.tile_kind.{name}"),
            effect=Description(key=f"picnic.tile_kind.{name}.effect"),
        )
    for group, tiles in (("base", BASE), ("tents", TENTS), ("trap_rain", TRAP_RAIN), ("cold_dragon", COLD_DRAGON)):
        counted: dict[Tile, int] = {}
        for tile in tiles:
            counted[tile] = counted.get(tile, 0) + 1
        for tile, count in counted.items():
            result.tiles.add(tile=tile.to_proto(), count=count, group=group)
    for index, name in enumerate(FRIEND_NAMES):
        label = Description(key=f"picnic.friend.{slug(name)}")
        result.friends.add(friend=index, name=name, label=label, rgb=looks["friends"][name])
    for piece in ("facteur", "dragon", "tent"):
        result.pieces.add(piece=piece, name=Description(key=f"picnic.piece.{piece}"), rgb=looks["pieces"][piece])
    for terrain, name in _TERRAINS.items():
        result.terrains.add(
            terrain=terrain, name=Description(key=f"picnic.terrain.{name}"), rgb=looks["terrains"][name]
        )
    return result
