"""What each viewer may see of a picnic game: the only way state leaves the engine.

Hidden from players and spectators: the faces of the tiles lying face down in the
lid, the backs being public. That includes a Rain tile that went back to its place:
everyone saw it drawn (the events say so, as at the table), but the view shows only
its back again, so players must remember where it lies. Everything else is on the
table for all to see: the board, the pieces, the night spaces, the drawn tile, the
tiles kept in front of players (face up) and those out of the game. Once the game is
over, the lid is turned over too (GameWon and GameLost say what lay where)."""

from __future__ import annotations

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import Viewer
from engines.picnic.rules import dragon_choices
from engines.picnic.state import PicnicState


def view(state: PicnicState, viewer: Viewer) -> pb.View:
    message = pb.View(phase=state.phase, seat_count=state.seat_count)
    if state.phase == pb.PHASE_UNSPECIFIED:
        return message
    if state.phase != pb.PHASE_FINISHED:
        message.active_seat = state.active_seat
    if state.options is not None:
        message.options.CopyFrom(state.options)
    board = state.board
    message.board.CopyFrom(board.layout)
    message.facteur = state.facteur
    for friend, cell in enumerate(state.friends):
        friend_view = message.friends.add(friend=friend, name=board.friend_names[friend], invited=cell is None)
        if cell is not None:
            friend_view.cell = cell
    if state.dragon is not None:
        message.dragon = state.dragon
    if state.tent is not None:
        message.tent = state.tent
    message.nights = len(state.nights)
    revealed = viewer.is_admin or state.result is not None
    for place, (back, tile) in enumerate(zip(state.backs, state.lid, strict=True)):
        lid_place = message.lid.add(place=place, occupied=tile is not None, back=back)
        if revealed and tile is not None:
            lid_place.tile.CopyFrom(tile.to_proto())
    if state.drawn is not None:
        drawn = state.drawn
        message.drawn.CopyFrom(pb.DrawnTile(seat=drawn.seat, place=drawn.place, tile=drawn.tile.to_proto()))
    for seat, kept in enumerate(state.kept):
        if kept is not None:
            message.kept.add(seat=seat, tile=kept.to_proto())
    message.removed.extend(tile.to_proto() for tile in state.removed)
    message.dragon_choices.extend(dragon_choices(state))
    if state.result is not None:
        message.result.CopyFrom(pb.Result(won=state.result.won, reason=state.result.reason))
    return message


def redact(event: pb.Event, viewer: Viewer) -> pb.Event:
    if viewer.is_admin or event.WhichOneof("kind") != "game_started":
        return event
    redacted = pb.Event()
    redacted.CopyFrom(event)
    for place in redacted.game_started.lid:
        place.ClearField("tile")
    return redacted
