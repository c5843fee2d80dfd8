"""Events and legal commands with their descriptions for people, and commands with
the choice steps that pick them, in a caller's language.

An event is described from the event as its viewer may see it (after redaction), a
command from the view of the seat that may play it, so a description never tells
more than what it describes (tests/support/engine_properties.py checks it in two
worlds). The phrases come from the game's describer (engines/describers.py); the
words from the catalogs (service/app/words/catalogs.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from google.protobuf.message import Message
from ludotheque.text.v1.description_pb2 import Description
from ludotheque.v1 import choice_pb2, game_pb2

from engines.describers import DESCRIBERS
from engines.phrases import Arg, Described, NumberArg, Phrase, SeatArg, StepRole, TextArg, phrase
from service.app.model import envelopes
from service.app.words.catalogs import Words, catalogs

if TYPE_CHECKING:
    from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

ROLES = {
    StepRole.ACTION: choice_pb2.CHOICE_ROLE_ACTION,
    StepRole.PIECE: choice_pb2.CHOICE_ROLE_PIECE,
    StepRole.DESTINATION: choice_pb2.CHOICE_ROLE_DESTINATION,
    StepRole.OPTION: choice_pb2.CHOICE_ROLE_OPTION,
}


@dataclass(frozen=True, slots=True)
class Audience:
    """Who is told, and how: a language's words, and the game's players' names.
    `anonymous`: told without anybody's name (an anonymous reader of a listed game,
    views.hides_players): the seats are "Player 1"... and a table event's names go."""

    words: Words
    names: tuple[str, ...]
    anonymous: bool = False

    @staticmethod
    def of(seats: Sequence[game_pb2.Seat], locale: str, anonymous: bool = False) -> Audience:
        """`locale`: a request's locale field (a tag or an Accept-Language list)."""
        words = catalogs().words(locale)
        names = ("",) * len(seats) if anonymous else tuple([seat.name for seat in seats])
        key = (words.locale, names, anonymous)
        made = _AUDIENCES.get(key)  # every answer asks: an audience is immutable, made once
        if made is None or made.words is not words:
            if len(_AUDIENCES) >= MAX_AUDIENCES:
                _AUDIENCES.clear()
            made = _AUDIENCES[key] = Audience(words, names, anonymous)
        return made


# (language, the players' names, anonymous) -> their audience.
_AUDIENCES: dict[tuple[str, tuple[str, ...], bool], Audience] = {}
MAX_AUDIENCES = 4096


def describe_table_event(event: game_pb2.Event, audience: Audience) -> None:
    """Writes a table event's description (a table event is the same for every viewer
    but an anonymous audience, from which the names of who joined or left are taken)."""
    if audience.anonymous:
        change = event.table
        if change.HasField("joined"):
            change.joined.ClearField("name")
            change.joined.ClearField("age")
        elif change.HasField("left"):
            change.left.ClearField("name")
    audience.words.describe(table_phrase(event.table), audience.names, into=event.description)


# The table events (TableEvent's `change`) table_phrase() describes.
TABLE_EVENT_KINDS = frozenset({"joined", "left", "timed_out", "taken_over", "handed_back"})


def table_phrase(change: game_pb2.TableEvent) -> Phrase:
    """What happened around the table, for people. A player who joins or leaves is
    named as the event has it (the seat may have another player now)."""
    which = change.WhichOneof("change")
    if which == "joined":
        joined = change.joined
        who = TextArg(str(joined.seat), joined.name) if joined.name else SeatArg(joined.seat)
        return phrase("table.bot_joined" if joined.bot else "table.joined", seat=who)
    if which == "left":
        left = change.left
        return phrase("table.left", seat=TextArg(str(left.seat), left.name) if left.name else SeatArg(left.seat))
    if which == "timed_out":
        timed_out = change.timed_out
        return phrase("table.timed_out", seat=SeatArg(timed_out.seat), count=NumberArg(timed_out.missed_turns))
    if which == "taken_over":
        taken = change.taken_over
        missed = taken.reason == game_pb2.TAKE_OVER_REASON_MISSED_TURNS
        return phrase("table.taken_over_missed" if missed else "table.taken_over", seat=SeatArg(taken.seat))
    if which == "handed_back":
        return phrase("table.handed_back", seat=SeatArg(change.handed_back.seat))
    return phrase("table.unknown")


def describe_event(kind: str, event: game_pb2.Event, payload: Message, audience: Audience) -> None:
    """Writes `event`'s description, from `payload`: the game event as the viewer may
    see it."""
    phrase = DESCRIBERS[kind].describe_event(payload)
    audience.words.describe(phrase, audience.names, into=event.description)


def stored_phrase(description: Description) -> Phrase:
    """The phrase a stored description was made of, when its arguments are seats (an
    argument named "seat", whose value is the seat's index) and numbers only, as every
    outcome's are (engines/describing.py): to tell it again in another language."""
    args: dict[str, Arg] = {}
    for name, arg in sorted(description.args.items()):
        value = int(arg.value) if arg.value.lstrip("-").isdigit() else 0
        args[name] = SeatArg(value) if name == "seat" else NumberArg(value)
    return phrase(description.key, **args)


# The keys of the events that record versions the event store lost (service/app/keeping/losses.py):
# a placeholder holding a lost version's number, and the notice after them.
LOSS_KEYS = ("history.lost_version", "history.loss", "history.loss_reused")


def describe_loss(event: game_pb2.Event, audience: Audience) -> None:
    """Writes the description of an event that records a loss of the game's history."""
    loss = event.history_loss
    if loss.first <= event.version <= loss.last:
        said = phrase(LOSS_KEYS[0])
    else:
        counted = {
            "first": NumberArg(loss.first),
            "last": NumberArg(loss.last),
            "count": NumberArg(loss.last - loss.first + 1),
        }
        said = phrase(LOSS_KEYS[2] if loss.reused else LOSS_KEYS[1], **counted)
    audience.words.describe(said, audience.names, into=event.description)


def described_commands(
    kind: str,
    payloads: Sequence[Message],
    view: Message,
    audience: Audience,
    *,
    into: RepeatedCompositeFieldContainer[game_pb2.Command] | None = None,
) -> list[game_pb2.Command]:
    """The commands in their envelopes, each with its description and choice steps,
    from `view`: what the seat that may play them sees. With `into` (an answer's
    repeated field), appended there instead (and none returned)."""
    words, names = audience.words, audience.names
    commands: list[game_pb2.Command] = []
    for payload, described in zip(payloads, DESCRIBERS[kind].describe_commands(payloads, view), strict=True):
        command = game_pb2.Command() if into is None else into.add()
        if into is None:
            commands.append(command)
        if described.personal:
            getattr(command, kind).CopyFrom(payload)
            _decorate(command, described, words, names)
            continue
        # Words that name no seat are the same in every game: the move with its words
        # is made once per language and copied after.
        key = (words.locale, kind, payload.SerializeToString(), described)
        made = _MADE.get(key)
        if made is None:
            if len(_MADE) >= MAX_MADE:
                _MADE.clear()
            made = _MADE[key] = _decorate(envelopes.command(kind, payload), described, words, names)
        command.CopyFrom(made)
    return commands


# (language, kind, move, its described words) -> the move with its description and choices.
_MADE: dict[tuple[str, str, bytes, Described], game_pb2.Command] = {}
MAX_MADE = 16384


def _decorate(command: game_pb2.Command, described: Described, words: Words, names: Sequence[str]) -> game_pb2.Command:
    words.describe(described.phrase, names, into=command.description)
    for step in described.steps:
        choice = command.choices.add(role=ROLES[step.role], subject=step.subject, value=step.value)
        if step.label is described.phrase:  # a one-step move: its label is the move's words
            choice.description.CopyFrom(command.description)
        else:
            words.describe(step.label, names, into=choice.description)
    return command
