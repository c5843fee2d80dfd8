"""Facteur Souris's picnic in plain text, from a viewer's View: the board drawn
with its paths, the pieces, the night spaces and the lid (what `ludotheque play`
shows)."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.picnic.v1 import picnic_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.picnic.board import WIDTH, cell_name
from engines.picnic.tiles import tile_text

# Each space is three characters: a middle (a piece, or the ground) between two sides.
_GROUND = {pb.TERRAIN_MEADOW: ".", pb.TERRAIN_ROCK: "^", pb.TERRAIN_POND: "~"}
_BACKS = {pb.TILE_BACK_PLAIN: "#", pb.TILE_BACK_ENVELOPE: "@"}
# Short faces, for the admin's view of the lid.
_CODES = {
    pb.TILE_KIND_FACTEUR: "Fs",
    pb.TILE_KIND_FRIEND: "Fr",
    pb.TILE_KIND_RAIN: "Rn",
    pb.TILE_KIND_TENT: "Tt",
    pb.TILE_KIND_NIGHT: "Nt",
    pb.TILE_KIND_DRAGON: "Dr",
}
LEGEND = (
    "F Facteur Souris  1-6 friends  D dragon  T tent  * several  [H] house  (P) picnic site\n"
    "o path  ^ rock  ~ pond  ~o~ stepping stones  ^o^ rocky pass  . meadow"
)


def _name(seats: Sequence[game_pb2.Seat], index: int) -> str:
    named = seats[index].name if index < len(seats) else ""
    return named or f"Player {index + 1}"  # people count seats from 1


def tile_name(tile: pb.Tile) -> str:
    return tile_text(tile.kind, tile.value)


def _pieces(view: pb.View) -> dict[int, list[str]]:
    pieces: dict[int, list[str]] = {}
    pieces.setdefault(view.facteur, []).append("F")
    for friend in view.friends:
        if friend.HasField("cell"):
            pieces.setdefault(friend.cell, []).append(str(friend.friend + 1))
    if view.HasField("dragon"):
        pieces.setdefault(view.dragon, []).append("D")
    if view.HasField("tent"):
        pieces.setdefault(view.tent, []).append("T")
    return pieces


def _joined(board: pb.BoardLayout, a: int, b: int) -> bool:
    return board.cells[a].path and board.cells[b].path


def draw_board(view: pb.View) -> list[str]:
    board = view.board
    pieces = _pieces(view)
    lines = ["      " + "   ".join(chr(ord("A") + c) for c in range(board.width))]
    for row in range(board.height):
        text = f"{row + 1:>3}  "
        below = "     "
        for column in range(board.width):
            cell = row * board.width + column
            info = board.cells[cell]
            ground = "o" if info.path else _GROUND.get(info.terrain, "?")
            here = pieces.get(cell, [])
            middle = here[0] if len(here) == 1 else "*" if here else ground
            left, right = " ", " "
            if cell == board.house:
                left, right, middle = "[", "]", middle if here else "H"
            elif cell == board.picnic:
                left, right, middle = "(", ")", middle if here else "P"
            elif info.terrain != pb.TERRAIN_MEADOW:
                left = right = _GROUND[info.terrain]
            east = column + 1 < board.width and _joined(board, cell, cell + 1)
            west = column > 0 and _joined(board, cell, cell - 1)
            if west and left == " ":
                left = "-"
            if east and right == " ":
                right = "-"
            text += left + middle + right + ("-" if east else " ")
            south = row + 1 < board.height and _joined(board, cell, cell + board.width)
            below += " " + ("|" if south else " ") + "  "
        lines.append(text.rstrip())
        if row + 1 < board.height:
            lines.append(below.rstrip())
    return lines


def _where(view: pb.View, cell: int) -> str:
    name = cell_name(WIDTH, cell)
    if cell == view.board.house:
        return f"{name} (his house)"
    if cell == view.board.picnic:
        return f"{name} (the picnic site)"
    info = view.board.cells[cell]
    if info.terrain == pb.TERRAIN_ROCK:
        return f"{name} (on a rock)"
    if info.terrain == pb.TERRAIN_POND:
        return f"{name} (in a pond)"
    return name


def render_view(view: pb.View, seats: Sequence[game_pb2.Seat], me: int | None) -> str:
    if view.phase == pb.PHASE_UNSPECIFIED:
        return "The game has not started."
    lines = draw_board(view)
    lines.append(LEGEND)
    lines.append(f"Facteur Souris: {_where(view, view.facteur)}")
    forest = [f"{f.friend + 1} {f.name} {_where(view, f.cell)}" for f in view.friends if f.HasField("cell")]
    invited = [f.name for f in view.friends if f.invited]
    lines.append("In the forest:  " + (", ".join(forest) or "nobody"))
    lines.append(f"At the picnic:  {', '.join(invited) or 'nobody yet'} ({len(invited)} of 4 needed)")
    if view.HasField("dragon"):
        lines.append(f"Cold Dragon:    {_where(view, view.dragon)}")
    tent = _where(view, view.tent) if view.HasField("tent") else "not built"
    lines.append(f"Tent:           {tent}")
    spaces = view.board.night_spaces
    lines.append(f"Nights:         {'N' * view.nights}{'.' * (spaces - view.nights)}  ({view.nights} of {spaces})")
    lines.extend(_lid(view))
    for kept in view.kept:
        mine = " (you)" if kept.seat == me else ""
        lines.append(f"Kept by {_name(seats, kept.seat)}{mine}: {tile_name(kept.tile)}")
    if view.HasField("drawn"):
        drawn = view.drawn
        # Places counted from 1, as the words say.
        where = "" if drawn.place_hidden else f" from place {drawn.place + 1}"
        lines.append(f"Drawn by {_name(seats, drawn.seat)}{where}: {tile_name(drawn.tile)}")
    if view.removed:
        lines.append(f"Out of the game: {len(view.removed)} tiles")
    if view.dragon_choices:
        lines.append("The dragon may go to: " + ", ".join(cell_name(WIDTH, c) for c in view.dragon_choices))
    return "\n".join(lines)


def _lid(view: pb.View) -> list[str]:
    lines = ["Lid (# plain back, @ envelope back; a Rain tile goes back where it was: remember it!):"]
    row: list[str] = []
    admin = any(place.HasField("tile") for place in view.lid)
    for place in view.lid:
        back = _BACKS.get(place.back, "?") if place.occupied else " "
        face = ""
        if place.HasField("tile"):  # the admin sees the faces
            face = _CODES.get(place.tile.kind, "?") + (str(place.tile.value) if place.tile.value else "")
        number = place.place + 1  # counted from 1, as the words say ("place 1" is the first)
        row.append(f"{number:>2}{back}{face:<3}" if admin else f"{number:>2}{back}")
        if len(row) == 12:
            lines.append("  " + " ".join(row).rstrip())
            row = []
    if row:
        lines.append("  " + " ".join(row).rstrip())
    return lines
