"""Mooki Island in plain text, from a viewer's View: what `ludotheque play` shows."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.mooki.v1 import mooki_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.mooki.cards import FAMILY_NAMES, Face

PILE_NAMES = ("left", "right")


def face_text(face: pb.Face) -> str:
    if face.kind == pb.FACE_KIND_UNSPECIFIED:
        return "?"
    return str(Face.from_proto(face))


def _seat_name(seats: Sequence[game_pb2.Seat], index: int) -> str:
    return seats[index].name if index < len(seats) else f"seat {index}"


def render_view(view: pb.View, seats: Sequence[game_pb2.Seat], me: int | None) -> str:
    lines = []
    piles = "   ".join(
        f"[{i}] {PILE_NAMES[i]}: {p.size} cards" + (f", showing {face_text(p.top)}" if p.size else " (empty)")
        for i, p in enumerate(view.piles)
    )
    lines.append(f"Draw piles   {piles}")
    for collection in view.collections:
        who = _seat_name(seats, collection.seat) + (" (you)" if collection.seat == me else "")
        top = f", on top: {face_text(collection.top)}" if collection.size else ""
        cards = "card" if collection.size == 1 else "cards"
        lines.append(f"{who:<24} collection of {collection.size} {cards}{top}")
    if view.HasField("drawn"):
        drawn = view.drawn
        holder = _seat_name(seats, drawn.seat)
        hidden = face_text(drawn.hidden) if drawn.HasField("hidden") else "(hidden from you)"
        lines.append(f"{holder} holds a card: shown side {face_text(drawn.shown)}, other side {hidden}")
    stars = ", ".join(f"{FAMILY_NAMES[s.family].capitalize()} {s.stars}*" for s in view.stars)
    lines.append(f"Trophies     {stars}")
    if view.HasField("scoring"):
        lines.extend(_scoring(view, seats))
    return "\n".join(lines)


def _scoring(view: pb.View, seats: Sequence[game_pb2.Seat]) -> list[str]:
    names = [_seat_name(seats, i) for i in range(len(view.collections))]
    lines = ["Scoring      " + " | ".join(f"{n}" for n in names)]
    for tally in view.scoring.families:
        winner = f"-> {names[tally.winner]}" if tally.HasField("winner") else "-> tie, nobody"
        counts = " | ".join(str(c) for c in tally.counts)
        lines.append(f"  {FAMILY_NAMES[tally.family].capitalize():<10} {counts}  {winner}")
    lines.append("  Spiders    " + " | ".join(str(s) for s in view.scoring.spiders))
    if view.HasField("discarded"):
        lost = view.discarded
        lines.append(f"  The Spider ran off with {names[lost.seat]}'s {FAMILY_NAMES[lost.family].capitalize()} trophy.")
    elif view.scoring.HasField("penalised_seat"):
        lines.append(f"  {names[view.scoring.penalised_seat]} has more Spiders and must give back a trophy.")
    if view.HasField("result"):
        stars = " | ".join(str(s) for s in view.result.stars)
        lines.append(f"  Stars      {stars}")
    return lines


def describe_command(command: pb.Command, view: pb.View) -> str:
    action = command.WhichOneof("action")
    if action == "draw":
        pile = view.piles[command.draw.pile] if command.draw.pile < len(view.piles) else None
        showing = f" (showing {face_text(pile.top)})" if pile is not None and pile.size else ""
        return f"Draw from the {PILE_NAMES[command.draw.pile]} pile{showing}"
    if action == "place":
        drawn = view.drawn
        face = drawn.shown if command.place.side == pb.SIDE_SHOWN else drawn.hidden
        where = "on your opponent's collection" if face.kind == pb.FACE_KIND_SPIDER else "in your collection"
        return f"Play the {face_text(face)} {where}"
    if action == "discard_trophy":
        discard = command.discard_trophy
        if discard.auto:
            return "Give back the trophy with the fewest stars"
        return f"Give back the {FAMILY_NAMES[discard.family].capitalize()} trophy"
    return str(command)


def describe_event(event: pb.Event, seats: Sequence[game_pb2.Seat]) -> str | None:
    kind = event.WhichOneof("kind")
    if kind == "game_started":
        first = _seat_name(seats, event.game_started.first_seat)
        return f"The cards are shuffled into two piles. {first}, the youngest, starts."
    if kind == "card_drawn":
        drawn = event.card_drawn
        who = _seat_name(seats, drawn.seat)
        return f"{who} draws from the {PILE_NAMES[drawn.pile]} pile ({face_text(drawn.shown)} showing)."
    if kind == "card_placed":
        placed = event.card_placed
        who = _seat_name(seats, placed.seat)
        if placed.face.kind == pb.FACE_KIND_SPIDER:
            return f"{who} puts a Spider on {_seat_name(seats, placed.collection_seat)}'s collection!"
        return f"{who} adds a {face_text(placed.face)} to their collection."
    if kind == "trophies_awarded":
        return "The last card of a pile is played: time to count the Mookies."
    if kind == "trophy_discarded":
        lost = event.trophy_discarded
        trophy = FAMILY_NAMES[lost.family].capitalize()
        return f"The Spider runs off with {_seat_name(seats, lost.seat)}'s {trophy} trophy."
    if kind == "game_finished":
        return None  # the outcome line says it
    return None
