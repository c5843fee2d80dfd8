"""A game's stored events read at once (snapshots.payloads parses them as one EventRun)
give the payloads that parsing each event gives: in order, without the events of no
move, and a corrupt event is reported as it is when each event is parsed."""

from __future__ import annotations

import random

import pytest
from ludotheque.v1 import event_run_pb2, game_pb2

from engines.contract import SeatInfo
from service.app.model.errors import Code, ServiceError
from service.app.model.snapshots import payloads
from service.store.base import StoredEvent
from tests.support.kinds import EVERY_ENGINE as ENGINES


def _game(kind: str) -> list[game_pb2.Event]:
    """A few moves of a random game, with a table event and a loss's placeholder
    and notice among them, numbered as stored."""
    engine = ENGINES[kind]
    rng = random.Random(3)
    seats = [SeatInfo(age=20 + i) for i in range(max(engine.min_seats, 2))]
    dealt = engine.setup(engine.resolve_options(engine.options_type(), seats), seats, rng)
    state = engine.evolve_all(engine.initial_state(), dealt)
    moves = []
    for _ in range(6):
        seat = engine.status(state).to_act[0]
        made = engine.decide(state, seat, rng.choice(engine.legal_commands(state, seat)), rng)
        state = engine.evolve_all(state, made)
        moves += made
    envelopes = [game_pb2.Event(**{kind: payload}) for payload in [*dealt, *moves]]
    envelopes.insert(2, game_pb2.Event(table=game_pb2.TableEvent(joined=game_pb2.SeatJoined(seat=1))))
    envelopes.insert(4, game_pb2.Event(history_loss=game_pb2.HistoryLoss(first=5, last=5)))
    envelopes.insert(5, game_pb2.Event(history_loss=game_pb2.HistoryLoss(first=5, last=5)))
    for version, event in enumerate(envelopes, 1):
        event.version = version
        event.seat = 0
        event.command_id = f"c{version}"
        event.recorded_at.FromMilliseconds(1_700_000_000_000 + version)
    return envelopes


def _stored(events: list[game_pb2.Event]) -> list[StoredEvent]:
    return [StoredEvent(event.version, event.SerializeToString()) for event in events]


def _each(events: list[game_pb2.Event], kind: str) -> list[object]:
    return [getattr(event, kind) for event in events if event.HasField(kind)]  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", sorted(ENGINES))
def test_a_run_gives_each_events_payload_in_order(kind: str) -> None:
    events = _game(kind)
    found = list(payloads(_stored(events), kind))
    assert found == _each(events, kind) and len(found) == len(events) - 3
    assert list(payloads(_stored(events)[4:9], kind)) == _each(events[4:9], kind)
    skipping = [*events[:3], *events[6:]]  # not in a row: read one at a time, alike
    assert list(payloads(_stored(skipping), kind)) == _each(skipping, kind)


def test_an_event_that_is_not_one_event_of_the_run_is_read_on_its_own() -> None:
    events = _game("mooki")
    stored = _stored(events)
    # Another kind's payload after this one in the same bytes: the envelope holds the
    # last (a oneof), so the event has no Mooki payload, though its bytes have one.
    mixed = stored[7].data + game_pb2.Event(pirates=game_pb2.Event().pirates).SerializeToString()
    stored[7] = StoredEvent(stored[7].version, mixed)
    assert game_pb2.Event.FromString(mixed).WhichOneof("game") == "pirates"
    assert list(payloads(stored, "mooki")) == _each([game_pb2.Event.FromString(s.data) for s in stored], "mooki")
    # An event with neither a payload, nor a table event, nor a loss: left out.
    stored = _stored(events)
    stored[9] = StoredEvent(stored[9].version, game_pb2.Event(version=stored[9].version).SerializeToString())
    assert list(payloads(stored, "mooki")) == _each([game_pb2.Event.FromString(s.data) for s in stored], "mooki")


def test_a_corrupt_stored_event_is_reported() -> None:
    stored = _stored(_game("picnic"))
    stored[3] = StoredEvent(stored[3].version, stored[3].data[:-2])
    with pytest.raises(ServiceError) as raised:
        payloads(stored, "picnic")
    assert raised.value.code is Code.INTERNAL and "stored event 4 is corrupt" in raised.value.message


def test_the_run_has_the_event_fields_it_gathers() -> None:
    """Every EventRun field has the number of an Event field, and every kind's payload
    field of Event is in EventRun (a new game's too), so each stored event gives exactly one."""
    event, run = game_pb2.Event.DESCRIPTOR, event_run_pb2.EventRun.DESCRIPTOR
    names = {"versions": "version", "history_losses": "history_loss", "tables": "table"}
    for field in run.fields:
        assert event.fields_by_number[field.number].name == names.get(field.name, field.name)
    assert {field.name for field in event.oneofs_by_name["game"].fields} <= set(run.fields_by_name)
