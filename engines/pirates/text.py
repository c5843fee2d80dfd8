"""Pirates & Compagnie in plain text, from a viewer's View: what `ludotheque play` shows."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.pirates.v1 import pirates_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.pirates.cards import COLOUR_NAMES, Card

DIRECTIONS = {pb.DIRECTION_CLOCKWISE: "clockwise", pb.DIRECTION_COUNTERCLOCKWISE: "counterclockwise"}


def card_text(card: pb.Card) -> str:
    if card.kind == pb.CARD_KIND_UNSPECIFIED:
        return "?"
    return str(Card.from_proto(card))


def _cards(cards: Sequence[pb.Card]) -> str:
    return ", ".join(card_text(card) for card in cards)


def _colour(colour: pb.Colour.ValueType) -> str:
    return COLOUR_NAMES.get(colour, "?")


def _seat_name(seats: Sequence[game_pb2.Seat], index: int) -> str:
    named = seats[index].name if index < len(seats) else ""
    return named or f"Player {index + 1}"  # people count seats from 1


def render_view(view: pb.View, seats: Sequence[game_pb2.Seat], me: int | None) -> str:
    spaces = "space" if view.island_distance == 1 else "spaces"
    lines = [f"Round {view.round}: the first ship to sail {view.island_distance} {spaces} reaches the treasure island"]
    for seat, ship in enumerate(view.ships):
        track = "~" * ship + "." * max(view.island_distance - ship, 0)
        lines.append(f"  {_seat_name(seats, seat):<20} [{track}] {ship}/{view.island_distance}")
    top = f"Discard pile  {card_text(view.discard_top)} on top ({view.discard_size} cards)"
    if view.announced != pb.COLOUR_UNSPECIFIED:
        top += f"; the Parrot asks for {_colour(view.announced)}"
    lines.append(top)
    lines.append(f"Draw pile     {view.draw_pile_size} cards")
    if view.HasField("active_seat"):
        active = _seat_name(seats, view.active_seat)
        turn = f"Play goes {DIRECTIONS.get(view.direction, '?')}; {active} to play"
        if view.draw_penalty:
            turn += f": draw {view.draw_penalty} cards, or answer the Bottle with a Bottle"
        lines.append(turn)
    for hand in view.hands:
        who = _seat_name(seats, hand.seat) + (" (you)" if hand.seat == me else "")
        cards = "card" if hand.size == 1 else "cards"
        shown = f": {_cards(hand.cards)}" if hand.cards else ""
        lines.append(f"  {who:<26} {hand.size} {cards}{shown}")
    if view.drawn:
        lines.append(f"Just drawn    {_cards(view.drawn)}")
    return "\n".join(lines)
