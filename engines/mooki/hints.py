"""Why a hinted Mooki Island move is good, in a child's words (engines/hinting.py):
from what the seat knows, as its bots read it — the faces showing on the piles, both
faces of the card it holds, the stars of each trophy, and every face placed so far
(the whole table saw each card placed)."""

from __future__ import annotations

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.mooki.bots import final_score
from engines.mooki.cards import Face, family_index
from engines.mooki.describe import face, family
from engines.mooki.scoring import tally
from engines.mooki.state import MookiState
from engines.phrases import NumberArg, Phrase, SeatArg, phrase


def _about(state: MookiState, seat: int, chosen: Face, verb: str, last: bool) -> Phrase:
    """Why taking (`verb` "draw") or keeping ("keep") the face `chosen` is good."""
    if chosen.is_spider:
        return phrase(f"mooki.hint.{verb}_spider", owner=SeatArg(1 - seat))
    shown = face(chosen.to_proto())
    if last and final_score(state, seat, chosen)[0]:
        return phrase(f"mooki.hint.{verb}_wins", face=shown)
    counts, _ = tally(state.collections)
    index = family_index(chosen.family)
    mine = counts[index][seat]
    if mine:
        return phrase(f"mooki.hint.{verb}_more", face=shown, count=NumberArg(mine))
    return phrase(f"mooki.hint.{verb}_stars", face=shown, count=NumberArg(state.stars[index]))


def explain(state: MookiState, view: pb.View, seat: int, command: pb.Command) -> Phrase:
    """Why `command` is good for `seat` now ("Keep the Moon Mooki: you already have 3 like it")."""
    action = command.WhichOneof("action")
    if action == "draw" and command.draw.pile < len(state.piles) and state.piles[command.draw.pile]:
        pile = state.piles[command.draw.pile]
        return _about(state, seat, pile[0].shown, "draw", len(pile) == 1)
    if action == "place" and state.drawn is not None:
        card = state.drawn.card
        kept = card.hidden if command.place.side == pb.SIDE_HIDDEN else card.shown
        return _about(state, seat, kept, "keep", any(not pile for pile in state.piles))
    if action == "discard_trophy" and not command.discard_trophy.auto:
        return phrase("mooki.hint.discard", family=family(command.discard_trophy.family))
    return phrase("mooki.hint.discard_auto")
