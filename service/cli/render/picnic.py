"""Facteur Souris's picnic in plain text, from a viewer's View: the board drawn
with its paths, the pieces, the night spaces and the lid (what `ludotheque play`
shows)."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.picnic.v1 import picnic_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.picnic.board import FRIEND_NAMES, WIDTH, cell_name
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
    return seats[index].name if index < len(seats) else f"seat {index}"


def _friend(index: int) -> str:
    return FRIEND_NAMES[index] if index < len(FRIEND_NAMES) else f"friend {index}"


def tile_name(tile: pb.Tile) -> str:
    return tile_text(tile.kind, tile.value)


def route_text(start: int | None, route: Sequence[int]) -> str:
    cells = ([start] if start is not None else []) + list(route)
    return " > ".join(cell_name(WIDTH, cell) for cell in cells)


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
        lines.append(f"Drawn by {_name(seats, drawn.seat)} from place {drawn.place}: {tile_name(drawn.tile)}")
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
        row.append(f"{place.place:>2}{back}{face:<3}" if admin else f"{place.place:>2}{back}")
        if len(row) == 12:
            lines.append("  " + " ".join(row).rstrip())
            row = []
    if row:
        lines.append("  " + " ".join(row).rstrip())
    return lines


def _source_tile(view: pb.View, source: pb.TileSource.ValueType) -> str:
    if source == pb.TILE_SOURCE_KEPT:
        kept = [k for k in view.kept if view.HasField("active_seat") and k.seat == view.active_seat]
        return f"your kept {tile_name(kept[0].tile)}" if kept else "your kept tile"
    return f"the drawn {tile_name(view.drawn.tile)}" if view.HasField("drawn") else "the drawn tile"


def _invitable(view: pb.View, cell: int) -> bool:
    return view.board.cells[cell].terrain == pb.TERRAIN_MEADOW


def describe_command(command: pb.Command, view: pb.View) -> str:
    action = command.WhichOneof("action")
    if action == "draw":
        back = view.lid[command.draw.place].back if command.draw.place < len(view.lid) else 0
        kind = "envelope back" if back == pb.TILE_BACK_ENVELOPE else "plain back"
        return f"Pick the tile at place {command.draw.place} ({kind})"
    if action == "move_facteur":
        move = command.move_facteur
        text = f"Walk Facteur Souris {route_text(view.facteur, move.route)} with {_source_tile(view, move.source)}"
        passing = view.options.invite_in_passing
        spaces = list(move.route) if passing else list(move.route[-1:])
        met = [f.name for f in view.friends if f.HasField("cell") and f.cell in spaces and _invitable(view, f.cell)]
        if met:
            text += f": invites {', '.join(met)}"
        if move.route and move.route[-1] == view.board.picnic:
            text += ": to the picnic site!"
        return text
    if action == "keep_tile":
        return f"Keep {_source_tile(view, pb.TILE_SOURCE_DRAWN)} for later"
    if action == "discard_tile":
        return f"Discard {_source_tile(view, command.discard_tile.source)}"
    if action == "move_friend":
        walk = command.move_friend
        friend = next((f for f in view.friends if f.friend == walk.friend), None)
        start = friend.cell if friend is not None and friend.HasField("cell") else None
        text = f"Walk {_friend(walk.friend)} {route_text(start, walk.route)}"
        end = walk.route[-1] if walk.route else None
        if end == view.facteur and end is not None and _invitable(view, end):
            text += ": meets Facteur Souris, invited!"
        return text
    if action == "place_tent":
        return f"Put up the Tent at {cell_name(WIDTH, command.place_tent.cell)}"
    if action == "move_dragon":
        return f"Send the dragon to {cell_name(WIDTH, command.move_dragon.cell)}"
    if action == "take_shelter":
        if command.take_shelter.shelter == pb.SHELTER_TENT and view.HasField("tent"):
            return f"Shelter from the rain in the Tent ({cell_name(WIDTH, view.tent)})"
        return "Run home to shelter from the rain"
    return str(command)


def describe_event(event: pb.Event, seats: Sequence[game_pb2.Seat]) -> str | None:
    kind = event.WhichOneof("kind")
    if kind == "game_started":
        started = event.game_started
        board = "hard" if started.options.board == pb.BOARD_HARD else "easy"
        first = _name(seats, started.first_seat)
        return f"The {len(started.lid)} tiles are shuffled face down into the lid; {board} board. {first} starts."
    if kind == "tile_drawn":
        drawn = event.tile_drawn
        return f"{_name(seats, drawn.seat)} turns over the tile at place {drawn.place}: {tile_name(drawn.tile)}."
    if kind == "tile_kept":
        return f"{_name(seats, event.tile_kept.seat)} keeps {tile_name(event.tile_kept.tile)} for later."
    if kind == "tile_discarded":
        gone = event.tile_discarded
        if gone.tile.kind == pb.TILE_KIND_FRIEND:
            return f"No friend can walk: the {tile_name(gone.tile)} tile is discarded."
        return f"{_name(seats, gone.seat)} discards {tile_name(gone.tile)}."
    if kind == "facteur_moved":
        moved = event.facteur_moved
        return f"Facteur Souris walks {route_text(moved.start, moved.route)}."
    if kind == "friend_moved":
        walked = event.friend_moved
        return f"{_friend(walked.friend)} walks {route_text(walked.start, walked.route)}."
    if kind == "friend_invited":
        invited = event.friend_invited
        return f"{_friend(invited.friend)} gets an invitation and runs to the picnic ({invited.invited_count} there)!"
    if kind == "rain_fell":
        rain = event.rain_fell
        shelter = "the Tent" if rain.shelter == pb.SHELTER_TENT else "his house"
        return f"Rain! Facteur Souris runs back to {shelter}; the Rain tile goes back face down to place {rain.place}."
    if kind == "tent_built":
        return f"A Tent goes up at {cell_name(WIDTH, event.tent_built.cell)}."
    if kind == "night_fell":
        return f"Night falls a little more: night space {event.night_fell.space} is filled."
    if kind == "dragon_moved":
        dragon = event.dragon_moved
        if dragon.stuck:
            return "The Cold Dragon cannot get any closer to Facteur Souris."
        return f"The Cold Dragon walks from {cell_name(WIDTH, dragon.start)} to {cell_name(WIDTH, dragon.to)}."
    return None  # turns passing and the end: the view and the outcome line say it
