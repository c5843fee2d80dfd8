"""Higher or Lower for people (docs/NEW_GAME.md, step 6): each event and legal
command as a phrase, a key of seeds/highlow/locales/ and its arguments, from what
the viewer may see of it; the rule codes; the material; no presets."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.highlow.v1 import highlow_pb2 as pb

from engines import limits
from engines.describing import Describer
from engines.highlow.rules import CARDS
from engines.phrases import Described, NumberArg, Phrase, SeatArg, Step, StepRole, phrase

# Every code rules.py refuses a command with (a test reads the rules' source); each
# has a key "highlow.rule.<code>".
RULE_CODES = ("not_started", "game_over", "not_your_turn", "unknown_command", "unknown_call")
_CALLS = {pb.CALL_HIGHER: "higher", pb.CALL_LOWER: "lower"}


def _call(call: pb.Call.ValueType) -> Phrase:
    return Phrase(f"highlow.call.{_CALLS.get(call, 'none')}", value=pb.Call.Name(call))


def _game_finished(finished: pb.GameFinished) -> Phrase:
    points = NumberArg(finished.points)
    if len(finished.winners) == 1:
        return phrase("highlow.event.game_finished", seat=SeatArg(finished.winners[0]), points=points)
    return phrase("highlow.event.game_tied", players=NumberArg(len(finished.winners)), points=points)


def describe_event(event: pb.Event) -> Phrase:
    kind = event.WhichOneof("kind")
    if kind == "game_started":
        return phrase("highlow.event.game_started", card=NumberArg(event.game_started.face_up))
    if kind == "card_turned":
        turned = event.card_turned
        key = "highlow.event.card_turned_right" if turned.right else "highlow.event.card_turned_wrong"
        return phrase(key, seat=SeatArg(turned.seat), call=_call(turned.call), card=NumberArg(turned.card))
    if kind == "game_finished":
        return _game_finished(event.game_finished)
    return limits.stopped_phrase("highlow", event.game_stopped.event_limit)


def describe_outcome(view: pb.View) -> Phrase:
    if view.HasField("stopped"):
        return limits.stopped_phrase("highlow", view.stopped.event_limit)
    return _game_finished(view.result)


def describe_commands(commands: Sequence[pb.Command], view: pb.View) -> list[Described]:
    described = []
    for command in commands:
        call = command.guess.call
        label = phrase(f"highlow.command.guess_{_CALLS[call]}", card=NumberArg(view.face_up))
        described.append(Described(label, (Step(StepRole.ACTION, "call", pb.Call.Name(call), label),)))
    return described


DESCRIBER = Describer(
    kind="highlow",
    describe_event=describe_event,
    describe_outcome=describe_outcome,
    describe_commands=describe_commands,
    event_kinds=frozenset({"game_started", "card_turned", "game_finished", "game_stopped"}),
    command_kinds=frozenset({"guess"}),
    rule_codes=RULE_CODES,
    material=lambda: pb.Material(deck=CARDS),
    presets=lambda: [],
    seat_secrets=False,
)
