"""Events and legal commands with their descriptions for people, and commands with
the choice steps that pick them, in a caller's language.

An event is described from the event as its viewer may see it (after redaction), a
command from the view of the seat that may play it, so a description never tells
more than what it describes (tests/support/engine_properties.py checks it in two
worlds). The phrases come from the game's describer (engines/describers.py); the
words from the catalogs (service/app/catalogs.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from google.protobuf.message import Message
from ludotheque.v1 import choice_pb2, game_pb2

from engines.describers import DESCRIBERS
from engines.phrases import Described, StepRole
from service.app import envelopes
from service.app.catalogs import Words, catalogs

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
    """Who is told, and how: a language's words, and the game's players' names."""

    words: Words
    names: tuple[str, ...]

    @staticmethod
    def of(seats: Sequence[game_pb2.Seat], locale: str) -> Audience:
        """`locale`: a request's locale field (a tag or an Accept-Language list)."""
        words, names = catalogs().words(locale), tuple([seat.name for seat in seats])
        key = (words.locale, names)
        made = _AUDIENCES.get(key)  # every answer asks: an audience is immutable, made once
        if made is None or made.words is not words:
            if len(_AUDIENCES) >= MAX_AUDIENCES:
                _AUDIENCES.clear()
            made = _AUDIENCES[key] = Audience(words, names)
        return made


# (language, the players' names) -> their audience.
_AUDIENCES: dict[tuple[str, tuple[str, ...]], Audience] = {}
MAX_AUDIENCES = 4096


def describe_event(kind: str, event: game_pb2.Event, payload: Message, audience: Audience) -> None:
    """Writes `event`'s description, from `payload`: the game event as the viewer may
    see it."""
    phrase = DESCRIBERS[kind].describe_event(payload)
    audience.words.describe(phrase, audience.names, into=event.description)


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
