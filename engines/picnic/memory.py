"""What the picnic's players must remember: « La tuile Pluie n'est pas retirée du jeu,
elle est remise dans le couvercle à l'endroit où elle a été piochée. » Everybody saw
where it went back; the lid shows only its back again, so the place is for the players
to remember.

So the past, read again during the game, does not tell the place of a tile that lies
face down there again now: a Rain tile's draw and its return are read back without
their place (`place_hidden`), and a view of a past version where it was in a player's
hand shows its place holding it, as the lid will again. What the tile was stays told
(everybody saw the rain fall, and Facteur Souris run home). A place whose tile left the
game is empty for all to see: its draw is told whole. Once the game is over the lid is
turned over and everything is open; so is it for the admin, and with
`Options.open_history` ("help my memory"). seeds/picnic/RULES.md, decision 4."""

from __future__ import annotations

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import Viewer
from engines.picnic.state import PicnicState


def holds(state: PicnicState, viewer: Viewer) -> bool:
    """While the game goes on, unless the players asked for help with their memory."""
    playing = state.phase not in (pb.PHASE_UNSPECIFIED, pb.PHASE_FINISHED)
    return playing and not (state.options is not None and state.options.open_history)


def face_down_again(state: PicnicState, place: int) -> bool:
    """Whether a tile lies face down at `place` now, that was drawn from there before:
    a place is dealt one tile, and only a Rain tile goes back to its place."""
    return place < len(state.lid) and state.lid[place] is not None


def recall(event: pb.Event, redacted: pb.Event, state: PicnicState, viewer: Viewer) -> pb.Event:
    """`redacted` without the place of a tile that lies face down there again now."""
    kind = event.WhichOneof("kind")
    if kind not in ("tile_drawn", "rain_fell") or not face_down_again(state, getattr(event, kind).place):
        return redacted
    copy = pb.Event()
    copy.CopyFrom(redacted)
    told = getattr(copy, kind)
    told.ClearField("place")
    told.place_hidden = True
    return copy


def recall_view(view: pb.View, then: PicnicState, now: PicnicState, viewer: Viewer) -> pb.View:
    """`view` (of `then`) without the place of the tile then in hand, when it lies face
    down there again in `now`: the lid shows that place holding its tile."""
    drawn = then.drawn
    if drawn is not None and face_down_again(now, drawn.place):
        view.lid[drawn.place].occupied = True
        view.drawn.ClearField("place")
        view.drawn.place_hidden = True
    return view
