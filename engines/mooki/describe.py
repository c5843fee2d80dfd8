"""Mooki Island for people: every event and legal command as a phrase (a message key
of seeds/mooki/locales/ and its arguments), and the steps that pick a move. Events are
described from what the viewer may see of them (the redacted event), commands from
the view of the seat that may play them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Literal

from google.protobuf.json_format import ParseDict
from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines import limits
from engines.data import load_json
from engines.describing import Describer
from engines.mooki import material
from engines.mooki.cards import FAMILIES, FAMILY_NAMES, FaceKindId, FamilyId
from engines.phrases import Arg, Described, Memo, NumberArg, Phrase, SeatArg, Step, StepRole, action_step, phrase

# Every code rules.py may refuse a command with (tests/engines/test_descriptions.py
# checks the rules' source against it; each has a key "mooki.rule.<code>").
RULE_CODES = (
    "not_started",
    "game_over",
    "not_your_turn",
    "unknown_command",
    "already_drawn",
    "unknown_pile",
    "empty_pile",
    "nothing_drawn",
    "unknown_side",
    "wrong_phase",
    "not_your_trophy",
    "scoring",
)


def _face_phrase(kind: FaceKindId, family: FamilyId) -> Phrase:
    if kind == pb.FACE_KIND_SPIDER:
        return Phrase("mooki.face.spider", value="FACE_KIND_SPIDER")
    if kind in (pb.FACE_KIND_MOOKI, pb.FACE_KIND_LEGENDARY) and family in FAMILY_NAMES:
        prefix = "legendary" if kind == pb.FACE_KIND_LEGENDARY else "mooki"
        value = f"{pb.FaceKind.Name(kind)}/{pb.Family.Name(family)}"
        return Phrase(f"mooki.face.{prefix}_{FAMILY_NAMES[family]}", value=value)
    return Phrase("mooki.face.unknown", value="FACE_KIND_UNSPECIFIED")


# The phrases of every face, family and pile, made once (they never change).
_FACES = {
    (kind, family): _face_phrase(kind, family)
    for kind in (pb.FACE_KIND_MOOKI, pb.FACE_KIND_LEGENDARY)
    for family in FAMILIES
}
_FACES[(pb.FACE_KIND_SPIDER, pb.FAMILY_UNSPECIFIED)] = _face_phrase(pb.FACE_KIND_SPIDER, pb.FAMILY_UNSPECIFIED)
_UNKNOWN_FACE = _face_phrase(pb.FACE_KIND_UNSPECIFIED, pb.FAMILY_UNSPECIFIED)
_FAMILIES = {f: Phrase(f"mooki.family.{name}", value=pb.Family.Name(f)) for f, name in FAMILY_NAMES.items()}
_PILES = (Phrase("mooki.pile.left", value="0"), Phrase("mooki.pile.right", value="1"))


def face(message: pb.Face) -> Phrase:
    return _FACES.get((message.kind, message.family), _UNKNOWN_FACE)


def family(value: FamilyId) -> Phrase:
    return _FAMILIES.get(value) or Phrase("mooki.family.unknown", value=pb.Family.Name(value))


def pile(index: int) -> Phrase:
    return _PILES[index] if index < len(_PILES) else Phrase("mooki.pile.unknown", value=str(index))


# --- events ---------------------------------------------------------------------------


def _game_started(event: pb.Event) -> Phrase:
    started = event.game_started
    # Nothing is said of ages when nobody gave one, nor named the youngest.
    key = "mooki.event.game_started" if started.options.HasField("youngest_seat") else "mooki.event.game_started_unaged"
    return phrase(key, seat=SeatArg(started.first_seat))


def _card_drawn(event: pb.Event) -> Phrase:
    drawn = event.card_drawn
    seat, which = SeatArg(drawn.seat), pile(drawn.pile)
    # A face is unset when the viewer may not see it (the face underneath, but to the
    # drawer), or no longer (read again once the table no longer shows it: memory.py).
    if drawn.HasField("hidden") and drawn.HasField("shown"):
        return phrase(
            "mooki.event.card_drawn_seen", seat=seat, pile=which, shown=face(drawn.shown), hidden=face(drawn.hidden)
        )
    if drawn.HasField("hidden"):
        return phrase("mooki.event.card_drawn_underneath", seat=seat, pile=which, hidden=face(drawn.hidden))
    if drawn.HasField("shown"):
        return phrase("mooki.event.card_drawn", seat=seat, pile=which, shown=face(drawn.shown))
    return phrase("mooki.event.card_drawn_unseen", seat=seat, pile=which)


def _card_placed(event: pb.Event) -> Phrase:
    placed = event.card_placed
    seat, owner = SeatArg(placed.seat), SeatArg(placed.collection_seat)
    if not placed.HasField("face"):  # covered since: read again as a card (memory.py)
        if placed.collection_seat != placed.seat:
            return phrase("mooki.event.card_placed_on_unseen", seat=seat, owner=owner)
        return phrase("mooki.event.card_placed_unseen", seat=seat)
    if placed.face.kind == pb.FACE_KIND_SPIDER:
        return phrase("mooki.event.spider_placed", seat=seat, owner=owner)
    return phrase("mooki.event.card_placed", seat=seat, face=face(placed.face))


def _trophies_awarded(event: pb.Event) -> Phrase:
    awarded = event.trophies_awarded
    if awarded.HasField("penalised_seat"):
        return phrase("mooki.event.trophies_awarded_penalty", seat=SeatArg(awarded.penalised_seat))
    return phrase("mooki.event.trophies_awarded")


def _trophy_discarded(event: pb.Event) -> Phrase:
    lost = event.trophy_discarded
    return phrase("mooki.event.trophy_discarded", seat=SeatArg(lost.seat), family=family(lost.family))


def _game_finished(event: pb.Event) -> Phrase:
    finished = event.game_finished
    winner = finished.winner
    stars = list(finished.stars)
    others = [count for seat, count in enumerate(stars) if seat != winner]
    args: dict[str, Arg] = {
        "seat": SeatArg(winner),
        "stars": NumberArg(stars[winner] if winner < len(stars) else 0),
        "other_stars": NumberArg(others[0] if others else 0),
    }
    key = "mooki.event.game_finished"
    if finished.won_by_age:
        by = "first" if finished.youngest_unknown else "age"
        key = f"mooki.event.game_finished_by_{by}"
    return phrase(key, **args)


def _game_stopped(event: pb.Event) -> Phrase:
    return limits.stopped_phrase("mooki", event.game_stopped.event_limit)


_EVENTS: dict[str, Callable[[pb.Event], Phrase]] = {
    "game_started": _game_started,
    "card_drawn": _card_drawn,
    "card_placed": _card_placed,
    "trophies_awarded": _trophies_awarded,
    "trophy_discarded": _trophy_discarded,
    "game_finished": _game_finished,
    "game_stopped": _game_stopped,
}


def describe_outcome(view: pb.View) -> Phrase:
    """How the game ended: the words of its last event (GameFinished, or GameStopped)."""
    if view.HasField("stopped"):
        return limits.stopped_phrase("mooki", view.stopped.event_limit)
    return _game_finished(pb.Event(game_finished=view.result))


def describe_event(event: pb.Event) -> Phrase:
    return _EVENTS[event.WhichOneof("kind") or ""](event)


# --- commands ---------------------------------------------------------------------------


_MOVES = Memo[Hashable, Described]()


def _draw(command: pb.Command, view: pb.View) -> Described:
    index = command.draw.pile
    shown = index < len(view.piles) and view.piles[index].HasField("top")
    top = face(view.piles[index].top) if shown else _UNKNOWN_FACE

    def make() -> Described:
        if shown:
            label = phrase("mooki.command.draw", pile=pile(index), shown=top)
        else:  # a past version's pile, whose face the table no longer shows (memory.py)
            label = phrase("mooki.command.draw_unseen", pile=pile(index))
        return Described(label, (Step(StepRole.PIECE, "pile", str(index), label),))

    return _MOVES.get(("draw", index, top), make)


def _place(command: pb.Command, view: pb.View) -> Described:
    side = command.place.side
    drawn = view.drawn
    which: Literal["shown", "hidden"] = "shown" if side == pb.SIDE_SHOWN else "hidden"
    if not drawn.HasField(which):  # a past version's card, whose faces the table no longer shows
        unseen = phrase(f"mooki.command.place_{which}_unseen")
        return Described(unseen, (Step(StepRole.PIECE, "side", pb.Side.Name(side), unseen),))
    kept = face(getattr(drawn, which))
    step = Step(StepRole.PIECE, "side", pb.Side.Name(side), kept)
    if kept.key == "mooki.face.spider":
        opponent = next((c.seat for c in view.collections if c.seat != drawn.seat), drawn.seat)
        return Described(phrase("mooki.command.place_spider", owner=SeatArg(opponent)), (step,))
    return _MOVES.get(("place", step), lambda: Described(phrase("mooki.command.place", face=kept), (step,)))


def _discard_trophy(command: pb.Command, view: pb.View) -> Described:
    discard = command.discard_trophy
    if discard.auto:
        label = phrase("mooki.command.discard_trophy_auto")
        return Described(label, (action_step("discardTrophy", label),))
    trophy = family(discard.family)
    label = phrase("mooki.command.discard_trophy", family=trophy)
    return Described(label, (Step(StepRole.PIECE, "trophy", pb.Family.Name(discard.family), trophy),))


_COMMANDS: dict[str, Callable[[pb.Command, pb.View], Described]] = {
    "draw": _draw,
    "place": _place,
    "discard_trophy": _discard_trophy,
}


def describe_commands(commands: Sequence[pb.Command], view: pb.View) -> list[Described]:
    return [_COMMANDS[command.WhichOneof("action") or ""](command, view) for command in commands]


def presets() -> list[tuple[str, pb.Options]]:
    """The named option sets of seeds/mooki/presets.json."""
    return [(p["name"], ParseDict(p["options"], pb.Options())) for p in load_json("mooki", "presets.json")["presets"]]


DESCRIBER = Describer(
    kind="mooki",
    describe_event=describe_event,
    describe_outcome=describe_outcome,
    describe_commands=describe_commands,
    event_kinds=frozenset(_EVENTS),
    command_kinds=frozenset(_COMMANDS),
    rule_codes=RULE_CODES,
    material=material.material,
    presets=presets,
)
