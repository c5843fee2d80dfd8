"""Why a hinted Pirates & Compagnie move is good, in a child's words
(engines/hinting.py): from what the seat knows, as its bots read it — its own hand,
the card on top of the discard pile, the direction of play, and how many cards each
player holds."""

from __future__ import annotations

from collections import Counter

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.phrases import NumberArg, Phrase, SeatArg, phrase
from engines.pirates.cards import Card
from engines.pirates.describe import card as card_phrase
from engines.pirates.describe import colour
from engines.pirates.state import PiratesState


def _play(state: PiratesState, seat: int, play: pb.Play) -> Phrase:
    laid = Card.from_proto(play.card)
    shown = card_phrase(play.card)
    if play.call_ohe:
        return phrase("pirates.hint.ohe", card=shown)
    if laid.is_parrot:
        return phrase("pirates.hint.parrot", colour=colour(play.announce))
    next_seat = SeatArg((seat + state.direction) % state.seat_count)
    if laid.kind == pb.CARD_KIND_BOTTLE:
        return phrase("pirates.hint.bottle", card=shown, seat=next_seat)
    if laid.kind == pb.CARD_KIND_SLEEPING_PIRATE:
        return phrase("pirates.hint.sleeping", card=shown, seat=next_seat)
    if laid.kind == pb.CARD_KIND_SAILBOAT:
        key = "pirates.hint.sailboat_again" if state.seat_count == 2 else "pirates.hint.sailboat"
        return phrase(key, card=shown)
    hand = list(state.hands[seat])
    if laid in hand:
        hand.remove(laid)
    same = Counter(card.colour for card in hand)[laid.colour]
    if same:
        return phrase("pirates.hint.colour", card=shown, count=NumberArg(same))
    return phrase("pirates.hint.play", card=shown)


def explain(state: PiratesState, view: pb.View, seat: int, command: pb.Command) -> Phrase:
    """Why `command` is good for `seat` now ("Lay the Bottle: Robin must draw two cards")."""
    action = command.WhichOneof("action")
    if action == "play":
        return _play(state, seat, command.play)
    if action == "end_turn":
        return phrase("pirates.hint.end_turn")
    if state.draw_penalty:
        return phrase("pirates.hint.draw_penalty", count=NumberArg(state.draw_penalty))
    return phrase("pirates.hint.draw")
