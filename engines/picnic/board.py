"""The two forest boards, loaded from seeds/picnic/boards.json (engines/picnic/data.py),
and the distances on them that the rules and the bots ask about. The maps are the
project's own: the rulebook only says that one board is easier than the other.

A board is a grid of spaces ("cells", numbered row by row from the top-left).
Facteur Souris walks along the paths: path cells side by side are joined. Friends
walk across the whole grid, orthogonally. The dragon walks the grid around rocks
and ponds (or flies over them)."""

from __future__ import annotations

import string
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.picnic.data import DATA

BoardId: TypeAlias = pb.Board.ValueType
TerrainId: TypeAlias = pb.Terrain.ValueType

_TERRAIN = {
    ".": (pb.TERRAIN_MEADOW, False),
    "^": (pb.TERRAIN_ROCK, False),
    "~": (pb.TERRAIN_POND, False),
    "#": (pb.TERRAIN_MEADOW, True),
    "n": (pb.TERRAIN_ROCK, True),
    "s": (pb.TERRAIN_POND, True),
    "H": (pb.TERRAIN_MEADOW, True),
    "P": (pb.TERRAIN_MEADOW, True),
}
BOARD_NAMES = {pb.BOARD_EASY: "easy", pb.BOARD_HARD: "hard"}


@dataclass(frozen=True, slots=True)
class Board:
    board: BoardId
    width: int
    height: int
    terrain: tuple[TerrainId, ...]
    path: tuple[bool, ...]
    house: int
    picnic: int
    friend_names: tuple[str, ...]
    friend_starts: tuple[int, ...]
    dragon_start: int
    night_spaces: int
    grid_neighbours: tuple[tuple[int, ...], ...] = field(repr=False)
    path_neighbours: tuple[tuple[int, ...], ...] = field(repr=False)
    # Walking distance along the paths between path cells (None: not joined).
    path_distance: tuple[tuple[int | None, ...], ...] = field(repr=False)
    layout: pb.BoardLayout = field(repr=False, compare=False)

    @property
    def cells(self) -> range:
        return range(self.width * self.height)

    def name(self, cell: int) -> str:
        return cell_name(self.width, cell)

    def invitable(self, cell: int) -> bool:
        """A friend standing here may receive an invitation (not on a rock or in a pond)."""
        return self.terrain[cell] == pb.TERRAIN_MEADOW

    def obstacles(self) -> int:
        """Rocks and ponds, on the paths or off them."""
        return sum(t != pb.TERRAIN_MEADOW for t in self.terrain)

    def exits(self) -> int:
        """How many paths lead into the picnic site."""
        return len(self.path_neighbours[self.picnic])

    def dragon_can_enter(self, cell: int, flies: bool) -> bool:
        """The dragon never enters the house or the picnic site. Walking, it goes
        over meadows and paths (fords and rocky passes included), around the rocks
        and ponds no path crosses; flying, over everything."""
        if cell in (self.house, self.picnic):
            return False
        return flies or self.path[cell] or self.terrain[cell] == pb.TERRAIN_MEADOW

    def distances(self, start: int, can_enter: Callable[[int], bool], limit: int | None = None) -> dict[int, int]:
        """Fewest orthogonal steps from `start` to every cell reachable through
        cells that `can_enter` accepts (at most `limit` steps)."""
        found = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if limit is not None and found[here] >= limit:
                continue
            for there in self.grid_neighbours[here]:
                if there not in found and can_enter(there):
                    found[there] = found[here] + 1
                    queue.append(there)
        return found


def cell_name(width: int, cell: int) -> str:
    row, column = divmod(cell, width)
    return f"{string.ascii_uppercase[column]}{row + 1}"


def parse_cell_name(width: int, height: int, name: str) -> int:
    column = string.ascii_uppercase.index(name[0])
    row = int(name[1:]) - 1
    if not (0 <= column < width and 0 <= row < height):
        raise ValueError(f"{name} is off the board")
    return row * width + column


def _neighbours(width: int, height: int, cell: int) -> tuple[int, ...]:
    row, column = divmod(cell, width)
    steps = ((row - 1, column), (row, column + 1), (row + 1, column), (row, column - 1))  # N, E, S, W
    return tuple(r * width + c for r, c in steps if 0 <= r < height and 0 <= c < width)


def _path_distances(paths: tuple[tuple[int, ...], ...], path_cells: Iterable[int], size: int) -> list[list[int | None]]:
    table: list[list[int | None]] = [[None] * size for _ in range(size)]
    for start in path_cells:
        found = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in paths[here]:
                if there not in found:
                    found[there] = found[here] + 1
                    queue.append(there)
        for cell, distance in found.items():
            table[start][cell] = distance
    return table


def _parse(board: BoardId, raw: dict[str, Any], friends: list[str], nights: int) -> Board:
    rows = [str(row) for row in raw["map"]]
    height, width = len(rows), len(rows[0])
    if any(len(row) != width for row in rows):
        raise ValueError("every map row must be as wide as the first")
    symbols = "".join(rows)
    terrain = tuple(_TERRAIN[s][0] for s in symbols)
    path = tuple(_TERRAIN[s][1] for s in symbols)
    if symbols.count("H") != 1 or symbols.count("P") != 1:
        raise ValueError("a board has one house (H) and one picnic site (P)")
    size = width * height
    grid = tuple(_neighbours(width, height, cell) for cell in range(size))
    paths = tuple(tuple(n for n in grid[cell] if path[cell] and path[n]) for cell in range(size))
    house, picnic = symbols.index("H"), symbols.index("P")
    starts_by_name: dict[str, str] = raw["friend_starts"]
    if sorted(starts_by_name) != sorted(friends):
        raise ValueError("every friend needs a starting space")
    starts = tuple(parse_cell_name(width, height, starts_by_name[name]) for name in friends)
    dragon = parse_cell_name(width, height, str(raw["dragon_start"]))
    distances = _path_distances(paths, (c for c in range(size) if path[c]), size)
    if distances[house][picnic] is None:
        raise ValueError("the paths must lead from the house to the picnic site")
    if picnic in starts or dragon in (house, picnic) or not (path[dragon] or terrain[dragon] == pb.TERRAIN_MEADOW):
        raise ValueError("no friend starts at the picnic; the dragon starts on open ground, away from both ends")
    layout = pb.BoardLayout(
        board=board,
        width=width,
        height=height,
        house=house,
        picnic=picnic,
        friend_names=friends,
        friend_starts=starts,
        dragon_start=dragon,
        night_spaces=nights,
    )
    for cell in range(size):
        layout.cells.add(id=cell, name=cell_name(width, cell), terrain=terrain[cell], path=path[cell])
    return Board(
        board=board,
        width=width,
        height=height,
        terrain=terrain,
        path=path,
        house=house,
        picnic=picnic,
        friend_names=tuple(friends),
        friend_starts=starts,
        dragon_start=dragon,
        night_spaces=nights,
        grid_neighbours=grid,
        path_neighbours=paths,
        path_distance=tuple(tuple(row) for row in distances),
        layout=layout,
    )


def load_boards() -> dict[BoardId, Board]:
    raw = DATA["boards.json"]
    friends = list(raw["friends"])
    nights = int(raw["night_spaces"])
    boards = {board: _parse(board, raw["boards"][name], friends, nights) for board, name in BOARD_NAMES.items()}
    # One size for every board, so a cell number names the same space on each
    # (events carry cell numbers, not the board).
    if len({(b.width, b.height) for b in boards.values()}) != 1:
        raise ValueError("seeds/picnic/boards.json: every board must have the same size")
    return boards


BOARDS = load_boards()
WIDTH = BOARDS[pb.BOARD_EASY].width
FRIEND_NAMES = BOARDS[pb.BOARD_EASY].friend_names
