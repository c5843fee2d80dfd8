"""The summary of a game that ListGames lists, as every write of the game stores it
(service/app/moves/writer.py) and GetGame starts from (views.game_message): the status
labels the store lists games by, the outcome (stored in English, told again in the
reader's language), and the times events are stamped with."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from ludotheque.v1 import game_pb2

from engines.contract import ADMIN, Status
from engines.describers import DESCRIBERS
from engines.registry import AnyEngine
from service.app.model.live_game import LiveGame
from service.app.views.descriptions import Audience, stored_phrase
from service.app.words.catalogs import DEFAULT_LOCALE

STATUS_NAMES = {
    game_pb2.GAME_STATUS_ACTIVE: "active",
    game_pb2.GAME_STATUS_FINISHED: "finished",
    game_pb2.GAME_STATUS_OPEN: "open",
}


def status_label(status: Status, started: bool = True) -> str:
    """The label the store lists the game by (STATUS_NAMES): open, active or finished."""
    return STATUS_NAMES[status_code(status, started)]


def status_code(status: Status, started: bool = True) -> game_pb2.GameStatus.ValueType:
    """The game's status; `started`: dealt (a game with open seats waits for its players first)."""
    if not started:
        return game_pb2.GAME_STATUS_OPEN
    return game_pb2.GAME_STATUS_FINISHED if status.finished else game_pb2.GAME_STATUS_ACTIVE


def outcome(live: LiveGame, status: Status, state: Any = None, audience: Audience | None = None) -> game_pb2.Outcome:
    """The outcome of the live game at `state` (default: now), described for `audience`
    (default: in English)."""
    return outcome_of(status, live.table.seats, live.engine, live.state if state is None else state, audience)


def outcome_of(
    status: Status, seats: Sequence[game_pb2.Seat], engine: AnyEngine, state: Any, audience: Audience | None = None
) -> game_pb2.Outcome:
    """The outcome of a game at `state` (whose status is `status`): its winners and
    scores, its summary (English, naming the seats' players), and its description for
    `audience` (default: in English): the words of the event that ended the game."""
    if not status.finished:
        return game_pb2.Outcome()
    names = [seat.name for seat in seats]
    summary = re.sub(r"\{(\d+)\}", lambda m: names[int(m.group(1))], status.summary)
    message = game_pb2.Outcome(winners=status.winners, scores=status.scores, summary=summary)
    said = DESCRIBERS[engine.kind].describe_outcome(engine.view(state, ADMIN))
    told = audience or Audience.of(seats, DEFAULT_LOCALE)
    told.words.describe(said, told.names, into=message.description)
    return message


def reword_outcome(game: game_pb2.Game, locale: str) -> None:
    """Tells a listed game's outcome again in `locale`, with the seats' names as the
    listing shows them (none, once anonymised): a listing is stored with its words in
    English (outcome phrases hold seats and numbers only: descriptions.stored_phrase)."""
    if game.outcome.HasField("description"):
        audience = Audience.of(game.seats, locale)
        said = stored_phrase(game.outcome.description)
        game.outcome.ClearField("description")
        audience.words.describe(said, audience.names, into=game.outcome.description)


def summary(live: LiveGame) -> game_pb2.Game:
    """The game without any viewer's view: what ListGames shows (summary_bytes parsed;
    its tail set in place rather than encoded to be parsed again)."""
    game = game_pb2.Game.FromString(_summary_head(live))
    _summary_tail_into(game, live, live.status, live.version, live.updated_at_ms)
    return game


def summary_bytes(live: LiveGame, status: Status, version: int, updated_at_ms: int, state: Any = None) -> bytes:
    """The summary (the game without any viewer's view) at `version`, encoded, from the
    fields that change only with the table (encoded once per revision of the table) and
    those that do: encoded messages concatenated parse as one (the store keeps them
    opaque; summary() parses them, which costs less than setting a dozen fields from
    Python). `state`: the state `status` is of, when it is not the live game's yet."""
    tail = game_pb2.Game()
    _summary_tail_into(tail, live, status, version, updated_at_ms, state)
    return _summary_head(live) + tail.SerializeToString()


def _summary_head(live: LiveGame) -> bytes:
    """The summary's fields that change only with the table, encoded once per revision."""
    table = live.table
    cached = live.summary_head
    if not cached.encoded or cached.revision != table.revision:
        record = live.record
        cached.encoded = game_pb2.Game(
            game_id=record.game_id,
            kind=record.kind,
            seats=table.seats,
            options=table.options,
            created_at=record.created_at,
            rules_version=record.rules_version,
            visibility=record.visibility,
            clock=record.clock if record.HasField("clock") else None,
            join_code=record.join_code if not table.started else "",
        ).SerializeToString()
        cached.revision = table.revision
    return cached.encoded


def _summary_tail_into(
    out: game_pb2.Game, live: LiveGame, status: Status, version: int, updated_at_ms: int, state: Any = None
) -> None:
    """Writes the summary's fields that change with every move into `out` (none set):
    one by one, as the constructor's keywords cost more."""
    out.status = status_code(status, live.table.started)
    out.version = version
    out.to_act.extend(status.to_act)
    if live.losses:
        out.history_losses.extend(live.losses)
    # Set in place: an Outcome and a Timestamp made only to be copied cost more than
    # the fields (an unfinished game's outcome is present and empty, as before).
    if status.finished:
        out.outcome.CopyFrom(outcome(live, status, state))
    else:
        out.outcome.SetInParent()
    seconds, millis = divmod(updated_at_ms, 1000)
    updated_at = out.updated_at
    updated_at.seconds, updated_at.nanos = seconds, millis * 1_000_000


def timestamp(ms: int) -> Timestamp:
    seconds, millis = divmod(ms, 1000)  # as Timestamp.FromMilliseconds, without its Python calls
    return Timestamp(seconds=seconds, nanos=millis * 1_000_000)
