"""Pirates & Compagnie in plain text, from a viewer's View: what `ludotheque play` shows."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.pirates.v1 import pirates_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.pirates.cards import COLOUR_NAMES, Card

DIRECTIONS = {pb.DIRECTION_CLOCKWISE: "clockwise", pb.DIRECTION_COUNTERCLOCKWISE: "counterclockwise"}
OHE = "“ohé!”"
OHE_OHE = "“ohé! ohé!”"


def card_text(card: pb.Card) -> str:
    if card.kind == pb.CARD_KIND_UNSPECIFIED:
        return "?"
    return str(Card.from_proto(card))


def _cards(cards: Sequence[pb.Card]) -> str:
    return ", ".join(card_text(card) for card in cards)


def _colour(colour: pb.Colour.ValueType) -> str:
    return COLOUR_NAMES.get(colour, "?")


def _seat_name(seats: Sequence[game_pb2.Seat], index: int) -> str:
    return seats[index].name if index < len(seats) else f"seat {index}"


def render_view(view: pb.View, seats: Sequence[game_pb2.Seat], me: int | None) -> str:
    lines = [f"Round {view.round}: the first ship to sail {view.island_distance} spaces reaches the treasure island"]
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


def describe_command(command: pb.Command, view: pb.View) -> str:
    action = command.WhichOneof("action")
    if action == "play":
        play = command.play
        text = f"Lay the {card_text(play.card)}"
        if play.card.kind == pb.CARD_KIND_PARROT:
            text += f" and ask for {_colour(play.announce)}"
        if play.call_ohe:
            last = view.HasField("active_seat") and view.hands[view.active_seat].size == 1
            text += f", calling {OHE_OHE if last else OHE}"
        return text
    if action == "draw":
        if view.phase == pb.PHASE_BOTTLE:
            return f"Draw {view.draw_penalty} cards (the Bottle's penalty)"
        return "Draw a card"
    if action == "end_turn":
        return "Keep what you drew and end your turn"
    return str(command)


def describe_event(event: pb.Event, seats: Sequence[game_pb2.Seat]) -> str | None:
    kind = event.WhichOneof("kind")
    if kind == "game_started":
        started = event.game_started
        text = f"The first ship to sail {started.options.island_distance} spaces reaches the treasure island."
        if started.removed:
            text += f" Out of the game: {_cards(started.removed)}."
        return text
    if kind == "round_dealt":
        dealt = event.round_dealt
        text = f"Round {dealt.round}: five cards each; the {card_text(dealt.discard)} starts the discard pile"
        if dealt.turned_under:
            text += f" (turned up first and put under the draw pile: {_cards(dealt.turned_under)})"
        return f"{text}. {_seat_name(seats, dealt.first_seat)} starts."
    if kind == "card_played":
        return _describe_play(event.card_played, seats)
    if kind == "cards_drawn":
        return _describe_draw(event.cards_drawn, seats)
    if kind == "draw_pile_rebuilt":
        return "The draw pile is empty: the discard pile but its top card is shuffled into a new one."
    if kind == "turn_passed":
        passed = event.turn_passed
        if passed.HasField("skipped_seat"):
            return f"{_seat_name(seats, passed.skipped_seat)} misses a turn."
        return None
    if kind == "round_won":
        won = event.round_won
        who = _seat_name(seats, won.seat)
        how = "lays their last card"
        if won.end == pb.ROUND_END_PILE_EXHAUSTED:
            how = "holds the fewest cards when the draw pile runs out for good"
        return f"{who} {how} and wins round {won.round}: their ship sails to space {won.ships[won.seat]}."
    if kind == "game_won":
        return f"{_seat_name(seats, event.game_won.seat)}'s ship reaches the treasure island!"
    return None


def _describe_play(played: pb.CardPlayed, seats: Sequence[game_pb2.Seat]) -> str:
    who = _seat_name(seats, played.seat)
    card = played.card
    if card.kind == pb.CARD_KIND_PARROT:
        text = f"{who} lays a Parrot: “{_colour(played.announced)}!”"
    else:
        text = f"{who} lays the {card_text(card)}."
    if card.kind == pb.CARD_KIND_SAILBOAT:
        text += " The direction of play turns around."
    elif card.kind == pb.CARD_KIND_BOTTLE:
        text += " A message in a bottle!"
    if played.called_ohe:
        text += f" {OHE_OHE if played.hand_size == 0 else OHE}"
    return text


def _describe_draw(drawn: pb.CardsDrawn, seats: Sequence[game_pb2.Seat]) -> str:
    who = _seat_name(seats, drawn.seat)
    seen = f" ({_cards(drawn.cards)})" if drawn.cards else ""
    if drawn.count == 0:
        return f"{who} finds nothing left to draw."
    cards = "a card" if drawn.count == 1 else f"{drawn.count} cards"
    if drawn.reason == pb.DRAW_REASON_BOTTLE:
        return f"{who} draws {cards} for the Bottle{seen}."
    if drawn.reason == pb.DRAW_REASON_OHE:
        return f"{who} forgot to call {OHE} and draws {cards} as a penalty{seen}."
    return f"{who} draws {cards}{seen}."
