"""The memory rule of Mooki Island, « La collection de Mookies et la mémoire »: « vous
n'avez jamais le droit de regarder les cartes qui se trouvent sous la première carte de
votre pile … Vous devez essayer de vous souvenir des Mookies que vous avez accumulés,
mais aussi de ceux que votre adversaire collectionne. »

So the past, read again during the game, shows only the faces the table shows now: the
face up on each draw pile, the face up on each collection's top card, and the card in
the drawer's hand (both its faces to the drawer). Any other face the events tell — a
card since covered by another or by a Spider, the face turned down under a kept one,
the face that showed on a pile before it was drawn — is read back as a card (its Face
unset). Who drew from which pile and onto whose collection a card went stay: everybody
saw it, and the piles' heights show it still. Once the game is over, everything is open
(the collections are sorted out); so is it for the admin, and with
`Options.open_history` ("help my memory"). seeds/mooki/RULES.md, decision 7."""

from __future__ import annotations

from google.protobuf.message import Message
from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import Viewer
from engines.mooki.state import MookiState

# A face of a card: the card's number and the side it lay on in the pile as dealt
# (SIDE_SHOWN: the face up; SIDE_HIDDEN: the face down).
CardSide = tuple[int, int]

_PLAYING = (pb.PHASE_DRAW, pb.PHASE_PLACE)


def holds(state: MookiState, viewer: Viewer) -> bool:
    """While the cards are played (not once the collections are sorted out), unless
    the players asked for help with their memory."""
    return state.phase in _PLAYING and not (state.options is not None and state.options.open_history)


def on_the_table(state: MookiState, viewer: Viewer) -> frozenset[CardSide]:
    """The faces `viewer` sees on the table in `state`."""
    faces: set[CardSide] = set()
    for pile in state.piles:
        if pile:
            faces.add((pile[0].card_id, pb.SIDE_SHOWN))
    for collection in state.collections:
        if collection:
            top = collection[-1]
            faces.add((top.card_id, top.side))
    if state.drawn is not None:
        card_id = state.drawn.card.card_id
        faces.add((card_id, pb.SIDE_SHOWN))
        if viewer.is_seat(state.drawn.seat):
            faces.add((card_id, pb.SIDE_HIDDEN))
    return frozenset(faces)


def _other(side: pb.Side.ValueType) -> pb.Side.ValueType:
    return pb.SIDE_HIDDEN if side == pb.SIDE_SHOWN else pb.SIDE_SHOWN


def _forget(message: Message, field: str, face: CardSide | None, seen: frozenset[CardSide]) -> None:
    """Clears the face `field` of `message` unless it is one the table shows."""
    if face not in seen:
        message.ClearField(field)


def recall(event: pb.Event, redacted: pb.Event, state: MookiState, viewer: Viewer) -> pb.Event:
    """`redacted` with every face the table no longer shows unset (`event`, as stored,
    names each card): a copy, for the events that tell faces."""
    kind = event.WhichOneof("kind")
    if kind not in ("game_started", "card_drawn", "card_placed"):
        return redacted
    seen = on_the_table(state, viewer)
    recalled = pb.Event()
    recalled.CopyFrom(redacted)
    if kind == "game_started":
        for pile, told in zip(event.game_started.piles, recalled.game_started.piles, strict=True):
            top = (pile.cards[0].card_id, pb.SIDE_SHOWN) if pile.cards else None
            _forget(told, "top", top, seen)
    elif kind == "card_drawn":
        drawn, told_drawn = event.card_drawn, recalled.card_drawn
        _forget(told_drawn, "shown", (drawn.card_id, pb.SIDE_SHOWN), seen)
        _forget(told_drawn, "hidden", (drawn.card_id, pb.SIDE_HIDDEN), seen)
        below = _below(state, drawn.pile, drawn.card_id)
        _forget(told_drawn, "revealed", None if below is None else (below, pb.SIDE_SHOWN), seen)
    else:
        placed, told_placed = event.card_placed, recalled.card_placed
        _forget(told_placed, "face", (placed.card_id, placed.side), seen)
        _forget(told_placed, "other_face", (placed.card_id, _other(placed.side)), seen)
    return recalled


def _below(state: MookiState, pile: int, card_id: int) -> int | None:
    """The card dealt under `card_id` in `pile`: the one its draw revealed."""
    dealt = state.dealt[pile] if pile < len(state.dealt) else ()
    for position, card in enumerate(dealt[:-1]):
        if card.card_id == card_id:
            return dealt[position + 1].card_id
    return None


def recall_view(view: pb.View, then: MookiState, now: MookiState, viewer: Viewer) -> pb.View:
    """`view` (of `then`) with every face the table no longer shows in `now` unset."""
    seen = on_the_table(now, viewer)
    for pile, shown in zip(then.piles, view.piles, strict=True):
        _forget(shown, "top", (pile[0].card_id, pb.SIDE_SHOWN) if pile else None, seen)
    for collection, collection_view in zip(then.collections, view.collections, strict=True):
        top = (collection[-1].card_id, collection[-1].side) if collection else None
        _forget(collection_view, "top", top, seen)
    if then.drawn is not None:
        card_id = then.drawn.card.card_id
        _forget(view.drawn, "shown", (card_id, pb.SIDE_SHOWN), seen)
        _forget(view.drawn, "hidden", (card_id, pb.SIDE_HIDDEN), seen)
    return view
