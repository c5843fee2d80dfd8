"""`verify` and the log format on complete logs, sound and corrupted."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2

from engines.mooki import ENGINE as MOOKI
from service.app.logs.verify import Problem, Replayed, verify
from service.app.model import gamelog
from tests.support.server import ROOT

GOLDEN = ROOT / "seeds" / "replays" / "mooki" / "game-1.jsonl"


def golden() -> game_pb2.GameLog:
    return gamelog.parse(GOLDEN.read_bytes())


def test_a_sound_log_verifies_in_both_formats() -> None:
    log = golden()
    assert isinstance(verify(log), Replayed)
    assert gamelog.parse(gamelog.to_binary(log)) == log
    assert gamelog.parse(gamelog.to_jsonl(log).encode()) == log
    assert gamelog.to_jsonl(log) == GOLDEN.read_text()


def first_index(log: game_pb2.GameLog, kind: str) -> int:
    return next(i for i, e in enumerate(log.events) if e.mooki.WhichOneof("kind") == kind)


def change_a_card(log: game_pb2.GameLog) -> int:
    index = first_index(log, "card_drawn")
    shown = log.events[index].mooki.card_drawn.shown
    shown.family = mooki.FAMILY_LEAF if shown.family != mooki.FAMILY_LEAF else mooki.FAMILY_SUN
    return index


def change_the_deal(log: game_pb2.GameLog) -> int:
    cards = log.events[0].mooki.game_started.piles[0].cards
    cards[0].card_id, cards[1].card_id = cards[1].card_id, cards[0].card_id
    return 0


def drop_an_event(log: game_pb2.GameLog) -> int:
    del log.events[5]
    return 5


def play_out_of_turn(log: game_pb2.GameLog) -> int:
    index = first_index(log, "card_drawn")
    log.events[index].seat = 1 - log.events[index].seat
    return index


def swap_two_events(log: game_pb2.GameLog) -> int:
    a, b = game_pb2.Event(), game_pb2.Event()
    a.CopyFrom(log.events[3])
    b.CopyFrom(log.events[4])
    a.version, b.version = b.version, a.version
    log.events[3].CopyFrom(b)
    log.events[4].CopyFrom(a)
    return 3


def overrule_a_bot(log: game_pb2.GameLog) -> int:
    index = first_index(log, "card_drawn")
    command = log.events[index].command.mooki
    command.draw.pile = 1 - command.draw.pile
    return index


def add_an_event_after_the_end(log: game_pb2.GameLog) -> int:
    extra = log.events.add()
    extra.CopyFrom(log.events[-2])
    extra.version = len(log.events)
    return len(log.events) - 1


def mark_game_over_too_soon(log: game_pb2.GameLog) -> int:
    log.events[10].game_over = True
    return 10


@pytest.mark.parametrize(
    "corrupt",
    [
        change_a_card,
        change_the_deal,
        drop_an_event,
        play_out_of_turn,
        swap_two_events,
        overrule_a_bot,
        add_an_event_after_the_end,
        mark_game_over_too_soon,
    ],
)
def test_a_corrupted_log_is_refused_at_the_event_that_breaks_it(corrupt: Callable[[game_pb2.GameLog], int]) -> None:
    log = golden()
    index = corrupt(log)
    problem = verify(log)
    assert isinstance(problem, Problem)
    assert problem.index == index, problem
    assert problem.reason


def test_another_rules_version_is_refused_naming_both() -> None:
    log = golden()
    log.header.rules_version = "mooki/0"
    problem = verify(log)
    assert isinstance(problem, Problem) and problem.rules_mismatch
    assert "mooki/0" in problem.reason and MOOKI.rules_version in problem.reason


def test_a_redacted_log_cannot_be_verified() -> None:
    log = golden()
    log.header.viewer.role = game_pb2.VIEWER_ROLE_SPECTATOR
    problem = verify(log)
    assert isinstance(problem, Problem) and problem.index is None and "complete log" in problem.reason


@pytest.mark.parametrize(
    ("data", "position"),
    [
        (b"", "record 1"),
        (b'{"format": "ludotheque-log/1"}\n{"version": "1", "nope": 1}\n', "line 2"),
        (b'{"format": "ludotheque-log/9"}\n', "line 1"),
        (b"{not json\n", "line 1"),
        (b'{"format": "ludotheque-log/1"}\n\n', "line 2"),
        (b"\x05\x0a\x01", "record 1"),
    ],
)
def test_unreadable_logs_name_the_line_or_record(data: bytes, position: str) -> None:
    with pytest.raises(gamelog.LogFormatError) as refused:
        gamelog.parse(data)
    assert refused.value.position.startswith(position)


def test_a_truncated_jsonl_file_is_refused_at_its_last_line() -> None:
    text = GOLDEN.read_text()
    cut = text[: len(text) - 40]
    with pytest.raises(gamelog.LogFormatError) as refused:
        gamelog.parse(cut.encode())
    assert refused.value.position == f"line {cut.count(chr(10)) + 1}"


def test_a_truncated_binary_file_is_refused() -> None:
    data = gamelog.to_binary(golden())
    with pytest.raises(gamelog.LogFormatError) as refused:
        gamelog.parse(data[:-10])
    assert "truncated" in refused.value.reason


def test_a_log_cut_between_two_moves_still_verifies() -> None:
    log = golden()
    del log.events[20:]
    assert isinstance(verify(log), Replayed)
