"""ReplayLog's use case (service/app/logs/log_replay.py): a log sent in the request is
verified and replayed, storing nothing, its versions shown a page at a time as any
viewer saw them, or its first bad event named with the versions before it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ludotheque.v1 import game_pb2, game_service_pb2

from engines.contract import Viewer
from service.app.logs.log_replay import MAX_LOG_EVENTS, LogReplays
from service.app.logs.verify import Replayed, verify
from service.app.model import envelopes, gamelog
from service.app.model.errors import Code, ServiceError
from service.app.model.heavy_reads import HeavySettings
from tests.support.aio import async_test
from tests.support.kinds import SERVED_KINDS
from tests.support.server import ROOT

REPLAYS = ROOT / "seeds" / "replays"


def golden(kind: str, number: int = 1) -> game_pb2.GameLog:
    return gamelog.parse((REPLAYS / kind / f"game-{number}.jsonl").read_bytes())


async def replay(
    log: game_pb2.GameLog, replays: LogReplays | None = None, **fields: object
) -> game_service_pb2.ReplayLogResponse:
    request = game_service_pb2.ReplayLogRequest(log=log, **fields)  # type: ignore[arg-type]
    return await (replays or LogReplays()).replay_log(request, "")


@pytest.mark.parametrize("kind", SERVED_KINDS)
@async_test
async def test_a_golden_log_replays_a_page_at_a_time_as_each_viewer_saw_it(kind: str) -> None:
    log = golden(kind)
    checked = verify(log)
    assert isinstance(checked, Replayed)
    last = len(log.events)
    first = await replay(log)
    assert first.valid and not first.HasField("problem") and first.replayed == last
    assert [s.at_version for s in first.steps] == list(range(min(100, last + 1)))
    assert first.next_from_version == (100 if last >= 100 else 0)
    final = await replay(log, from_version=last, as_seat=0)
    (step,) = final.steps
    assert step.view == envelopes.view(kind, checked.engine.view(checked.states[-1], Viewer.player(0)))
    assert step.status == game_pb2.GAME_STATUS_FINISHED and step.outcome.summary
    spectator = await replay(log, from_version=2, to_version=3, as_spectator=True)
    assert [s.at_version for s in spectator.steps] == [2, 3]
    assert spectator.steps[0].view == envelopes.view(kind, checked.engine.view(checked.states[2], Viewer.spectator()))
    assert not spectator.steps[0].legal_commands  # a spectator has no moves


@async_test
async def test_a_seat_sees_its_legal_moves_at_each_version() -> None:
    log = golden("mooki")
    steps = (await replay(log, as_seat=0, page_size=1000)).steps
    waiting = [s for s in steps if 0 in s.to_act and s.status == game_pb2.GAME_STATUS_ACTIVE]
    assert waiting and all(s.legal_commands for s in waiting)
    assert not any(s.legal_commands for s in steps if 0 not in s.to_act)


@async_test
async def test_each_step_carries_its_event_described_in_the_callers_language_as_the_viewer_saw_it() -> None:
    log = golden("mooki")
    log.events[0].description.text = "the sender's words"  # ignored: the server describes
    french = (await replay(log, page_size=1000, locale="fr")).steps
    assert not french[0].HasField("event")  # version 0: before any event
    assert [s.event.version for s in french[1:]] == [e.version for e in log.events]
    assert french[1].event.description.key == "mooki.event.game_started"
    assert french[1].event.description.text != "the sender's words"
    drawn = next(s for s in french if s.event.mooki.HasField("card_drawn"))
    assert drawn.event.description.text.startswith(log.header.seats[drawn.event.seat].name)
    assert " pioche " in f" {drawn.event.description.text} "  # French
    english = (await replay(log, from_version=drawn.at_version, page_size=1)).steps[0]
    assert english.event.description.text != drawn.event.description.text
    waiting = next(s for s in french if s.legal_commands)
    assert all(c.description.text and c.choices for c in waiting.legal_commands)  # the admin's moves, with their steps
    # A seat sees the other seat's draws without the face underneath, and so do their words.
    other = 1 - drawn.event.seat
    seen = (await replay(log, from_version=drawn.at_version, page_size=1, as_seat=other, locale="fr")).steps[0]
    assert not seen.event.mooki.card_drawn.HasField("hidden") and drawn.event.mooki.card_drawn.HasField("hidden")
    assert seen.event.description.key == "mooki.event.card_drawn"
    assert drawn.event.description.key == "mooki.event.card_drawn_seen"


@async_test
async def test_a_broken_log_names_its_first_bad_event_and_shows_the_versions_before_it() -> None:
    log = golden("mooki")
    index = next(i for i, e in enumerate(log.events) if e.HasField("command") and i > 10)
    log.events[index].seat = 1 - log.events[index].seat
    replayed = await replay(log, page_size=1000)
    assert not replayed.valid
    assert replayed.problem.event == index + 1
    assert replayed.problem.where == f"event {index + 1} (line {index + 2} of a .jsonl)"
    assert "may not play" in replayed.problem.reason
    assert replayed.replayed == index
    assert [s.at_version for s in replayed.steps] == list(range(index + 1))


@async_test
async def test_a_header_that_does_not_replay_shows_nothing() -> None:
    log = golden("mooki")
    log.header.kind = "chess"
    replayed = await replay(log)
    assert not replayed.valid and replayed.problem.event == 0 and replayed.problem.where == "the header"
    assert "chess" in replayed.problem.reason and not replayed.steps and replayed.replayed == 0
    older = golden("mooki")
    older.header.rules_version = "mooki/0"
    assert (await replay(older)).problem.rules_mismatch


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({}, "log"),
        ({"page_size": 1001}, "page_size"),
        ({"as_seat": 2}, "as_seat"),
        ({"as_seat": 0, "as_spectator": True}, "as_spectator"),
    ],
)
@async_test
async def test_bad_requests_are_refused_clearly(fields: dict[str, object], field: str) -> None:
    request = game_service_pb2.ReplayLogRequest(**fields)  # type: ignore[arg-type]
    if field != "log":
        request.log.CopyFrom(golden("mooki"))
    with pytest.raises(ServiceError) as refused:
        await LogReplays().replay_log(request, "")
    assert refused.value.code is Code.INVALID_ARGUMENT
    assert refused.value.details[0].field_violations[0].field == field  # type: ignore[attr-defined]


@async_test
async def test_a_log_too_long_to_replay_is_refused_before_any_work() -> None:
    log = golden("mooki")
    while len(log.events) <= MAX_LOG_EVENTS:
        log.events.extend(log.events[: MAX_LOG_EVENTS + 1 - len(log.events)])
    with pytest.raises(ServiceError) as refused:
        await replay(log)
    assert refused.value.code is Code.INVALID_ARGUMENT and str(MAX_LOG_EVENTS) in refused.value.message


@async_test
async def test_a_replay_leaves_the_event_loop_free_for_other_calls() -> None:
    """A long log replays in a worker thread: other tasks run before it is done."""
    replaying = asyncio.ensure_future(replay(golden("pirates")))
    await asyncio.sleep(0)  # the replay starts, and waits on its thread
    await asyncio.sleep(0)
    assert not replaying.done()
    assert (await replaying).valid


@async_test
async def test_a_few_logs_replay_at_once_a_few_more_wait_and_the_rest_are_told_to_retry() -> None:
    log, replays, settings = golden("pirates"), LogReplays(), HeavySettings()
    assert len(log.events) >= settings.read_events  # replayed in a worker process
    calls = (replay(log, replays) for _ in range(settings.workers + settings.waiting + 1))
    answers = await asyncio.gather(*calls, return_exceptions=True)
    refused = [a for a in answers if isinstance(a, ServiceError)]
    assert len(refused) == 1 and refused[0].code is Code.RESOURCE_EXHAUSTED
    assert all(a.valid for a in answers if not isinstance(a, BaseException))
    assert (await replay(log, replays)).valid  # once they are done, the next one runs


def test_the_golden_logs_fit_in_one_request() -> None:
    """The web app's debug panel sends a dropped file in one request (--max-message-bytes, 1 MiB)."""
    assert max(p.stat().st_size for p in Path(REPLAYS).glob("*/*.jsonl")) < 1 << 20
