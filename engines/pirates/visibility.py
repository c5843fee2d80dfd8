"""What each viewer may see of a Pirates & Compagnie game: the only way state leaves
the engine.

Hidden from players and spectators: the order of the draw pile, and every hand but
the viewer's own (its size is public). With open hands, every hand and every card
drawn is public; the draw pile's order never is. The discard pile shows only its
top card, as at the table; the events that laid the others were public."""

from __future__ import annotations

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.contract import Viewer
from engines.pirates.rules import to_act
from engines.pirates.state import CLOCKWISE, PiratesState


def view(state: PiratesState, viewer: Viewer) -> pb.View:
    message = pb.View(phase=state.phase, round=state.round, ships=state.ships)
    if state.options is None:
        return message
    open_hands = state.options.open_hands
    message.island_distance = state.options.island_distance
    seat = to_act(state)
    if seat is not None:
        message.active_seat = seat
    if state.discard:
        message.direction = pb.DIRECTION_CLOCKWISE if state.direction == CLOCKWISE else pb.DIRECTION_COUNTERCLOCKWISE
        message.discard_top.CopyFrom(state.top.to_proto())
        message.announced = state.announced
        message.discard_size = len(state.discard)
        message.draw_pile_size = len(state.draw_pile)
        message.draw_penalty = state.draw_penalty
        message.rebuilds = state.rebuilds
    for owner, hand in enumerate(state.hands):
        hand_view = message.hands.add(seat=owner, size=len(hand))
        if open_hands or viewer.is_admin or viewer.is_seat(owner):
            hand_view.cards.extend(card.to_proto() for card in hand)
    if state.drawn and (open_hands or viewer.is_admin or viewer.is_seat(state.active_seat)):
        message.drawn.extend(card.to_proto() for card in state.drawn)
    if state.winner is not None:
        message.winner = state.winner
    if viewer.is_admin:
        message.draw_pile.extend(card.to_proto() for card in state.draw_pile)
        message.discard_pile.extend(card.to_proto() for card in state.discard)
    return message


def redact(event: pb.Event, viewer: Viewer) -> pb.Event:
    if viewer.is_admin:
        return event
    kind = event.WhichOneof("kind")
    if kind == "round_dealt":
        redacted = pb.Event()
        redacted.CopyFrom(event)
        dealt = redacted.round_dealt
        del dealt.draw_pile[:]
        if not dealt.open_hands:
            for hand in dealt.hands:
                if not viewer.is_seat(hand.seat):
                    del hand.cards[:]
        return redacted
    if kind == "cards_drawn":
        drawn = event.cards_drawn
        if drawn.open_hands or viewer.is_seat(drawn.seat):
            return event
        redacted = pb.Event()
        redacted.CopyFrom(event)
        del redacted.cards_drawn.cards[:]
        return redacted
    if kind == "draw_pile_rebuilt":
        redacted = pb.Event()
        redacted.CopyFrom(event)
        del redacted.draw_pile_rebuilt.cards[:]
        return redacted
    return event
