"""Mooki Island in plain text, from a viewer's View: what `ludotheque play` shows."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.mooki.v1 import mooki_pb2 as pb
from ludotheque.v1 import game_pb2

from engines.mooki.cards import FAMILY_NAMES, Face

PILE_NAMES = ("left", "right")


def face_text(face: pb.Face) -> str:
    if face.kind == pb.FACE_KIND_UNSPECIFIED:
        return "a card"  # a face the viewer may not see, or no longer (a past version: the memory rule)
    return str(Face.from_proto(face))


def _seat_name(seats: Sequence[game_pb2.Seat], index: int) -> str:
    named = seats[index].name if index < len(seats) else ""
    return named or f"Player {index + 1}"  # people count seats from 1


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
