"""What each viewer may see of a Mooki Island game: the only way state leaves the engine.

Hidden from players and spectators: the order of the draw piles and every face lying
down in them; the hidden face of the drawn card (except from its holder); which card
is which (card ids would tell the face underneath, since the catalogue is public).
Buried collection cards are not shown during the game (only the top card is), as at
the table; the events that placed them were public when they happened."""

from __future__ import annotations

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import Viewer
from engines.mooki.cards import FAMILIES, Face
from engines.mooki.rules import scoring_to_proto, to_act
from engines.mooki.state import MookiState, PileCard


def _dealt(card: PileCard) -> pb.DealtCard:
    return pb.DealtCard(card_id=card.card_id, shown=card.shown.to_proto(), hidden=card.hidden.to_proto())


def _set_face(target: pb.Face, face: Face) -> None:
    """target.CopyFrom(face.to_proto()) without building a message to copy."""
    target.SetInParent()
    target.kind = face.kind
    target.family = face.family


def view(state: MookiState, viewer: Viewer) -> pb.View:
    message = pb.View(phase=state.phase, youngest_seat=state.youngest_seat)
    seat = to_act(state)
    if seat is not None:
        message.active_seat = seat
    for pile in state.piles:
        pile_view = message.piles.add(size=len(pile))
        if pile:
            _set_face(pile_view.top, pile[0].shown)
        if viewer.is_admin:
            pile_view.cards.extend(_dealt(card) for card in pile)
    sorted_out = state.phase in (pb.PHASE_SCORING, pb.PHASE_DISCARD_TROPHY, pb.PHASE_FINISHED)
    for owner, collection in enumerate(state.collections):
        collection_view = message.collections.add(seat=owner, size=len(collection))
        if collection:
            _set_face(collection_view.top, collection[-1].face)
        if sorted_out or viewer.is_admin:
            collection_view.faces.extend(placed.face.to_proto() for placed in collection)
    if state.drawn is not None:
        drawn = state.drawn
        drawn_view = message.drawn
        drawn_view.seat = drawn.seat
        drawn_view.pile = drawn.pile
        _set_face(drawn_view.shown, drawn.card.shown)
        if viewer.is_admin or viewer.is_seat(drawn.seat):
            _set_face(drawn_view.hidden, drawn.card.hidden)
    if state.stars:  # known once the game is dealt
        for family, stars in zip(FAMILIES, state.stars, strict=True):
            message.stars.add(family=family, stars=stars)
    if state.scoring is not None:
        message.scoring.CopyFrom(scoring_to_proto(state.scoring))
    if state.discarded is not None:
        seat_, family, auto = state.discarded
        message.discarded.CopyFrom(pb.TrophyDiscarded(seat=seat_, family=family, auto=auto))
    if state.result is not None:
        result = state.result
        message.result.CopyFrom(
            pb.GameFinished(
                stars=result.stars,
                winner=result.winner,
                won_by_age=result.won_by_age,
                youngest_unknown=result.youngest_unknown,
            )
        )
    return message


def redact(event: pb.Event, viewer: Viewer) -> pb.Event:
    if viewer.is_admin:
        return event
    kind = event.WhichOneof("kind")
    if kind == "game_started":
        redacted = pb.Event()
        redacted.CopyFrom(event)
        for pile in redacted.game_started.piles:
            del pile.cards[:]
        return redacted
    if kind == "card_drawn":
        redacted = pb.Event()
        redacted.CopyFrom(event)
        drawn = redacted.card_drawn
        drawn.ClearField("card_id")
        if not viewer.is_seat(drawn.seat):
            drawn.ClearField("hidden")
        return redacted
    if kind == "card_placed":
        redacted = pb.Event()
        redacted.CopyFrom(event)
        placed = redacted.card_placed
        placed.ClearField("card_id")
        # The face not kept is public when it was the one showing on the pile.
        if placed.side != pb.SIDE_HIDDEN and not viewer.is_seat(placed.seat):
            placed.ClearField("other_face")
        return redacted
    return event
