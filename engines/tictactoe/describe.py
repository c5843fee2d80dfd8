"""Tic-tac-toe for people (docs/NEW_GAME.md, step 6): each event and legal command as
a phrase, a key of seeds/tictactoe/locales/ and its arguments; the rule codes; the
material. No presets: a game without options has none to name."""

from __future__ import annotations

from collections.abc import Sequence

from ludotheque.tictactoe.v1 import tictactoe_pb2 as pb

from engines import limits
from engines.describing import Describer
from engines.phrases import Described, NumberArg, Phrase, SeatArg, Step, StepRole, phrase
from engines.tictactoe.rules import SIZE

# Every code rules.py refuses a command with (a test reads the rules' source); each
# has a key "tictactoe.rule.<code>".
RULE_CODES = ("not_started", "game_over", "not_your_turn", "unknown_command", "no_such_square", "square_taken")
_MARKS = {pb.MARK_X: "x", pb.MARK_O: "o"}


def _square(square: int) -> Phrase:
    """A square by its row and column, counted from 1 at the top left."""
    row, column = divmod(square, SIZE)
    return phrase("tictactoe.square", str(square), row=NumberArg(row + 1), column=NumberArg(column + 1))


def _game_finished(finished: pb.GameFinished) -> Phrase:
    if not finished.winners:
        return phrase("tictactoe.event.game_drawn")
    return phrase("tictactoe.event.game_finished", seat=SeatArg(finished.winners[0]))


def describe_event(event: pb.Event) -> Phrase:
    kind = event.WhichOneof("kind")
    if kind == "game_started":
        return phrase("tictactoe.event.game_started")
    if kind == "mark_placed":
        placed = event.mark_placed
        mark = phrase(f"tictactoe.mark.{_MARKS.get(placed.mark, 'none')}", pb.Mark.Name(placed.mark))
        return phrase(
            "tictactoe.event.mark_placed", seat=SeatArg(placed.seat), mark=mark, square=_square(placed.square)
        )
    if kind == "game_finished":
        return _game_finished(event.game_finished)
    return limits.stopped_phrase("tictactoe", event.game_stopped.event_limit)


def describe_outcome(view: pb.View) -> Phrase:
    if view.HasField("stopped"):
        return limits.stopped_phrase("tictactoe", view.stopped.event_limit)
    return _game_finished(view.result)


def describe_commands(commands: Sequence[pb.Command], view: pb.View) -> list[Described]:
    described = []
    for command in commands:
        square = _square(command.place.square)
        label = phrase("tictactoe.command.place", square=square)
        described.append(Described(label, (Step(StepRole.DESTINATION, "square", square.value, square),)))
    return described


DESCRIBER = Describer(
    kind="tictactoe",
    describe_event=describe_event,
    describe_outcome=describe_outcome,
    describe_commands=describe_commands,
    event_kinds=frozenset({"game_started", "mark_placed", "game_finished", "game_stopped"}),
    command_kinds=frozenset({"place"}),
    rule_codes=RULE_CODES,
    material=lambda: pb.Material(columns=SIZE, rows=SIZE),
    seat_secrets=False,
)
