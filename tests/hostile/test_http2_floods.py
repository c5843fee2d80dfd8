"""The HTTP/2 floods of the 2023–2024 advisories on the gRPC port, each sent by a client
that reads the server's frames as it writes (service/bench/floods.py): each is cut with
a GOAWAY (ENHANCE_YOUR_CALM) that names it, the connection closed, after a bounded count
of bytes, while another client's calls go on. (The rapid reset and the stream flood:
test_connections.py.)

Before (grpcio 1.85 behind the gate, which watched resets only): a CONTINUATION flood's
64 MB were all accepted, never cut (+37 MB of server memory; 8.2 GB in 30 s in the
issue's run), 64 MB of SETTINGS frames too (4.5 million ACKs written back), a PING flood
beside a call in flight ended without a word, and 2,000 calls on a window of 0 were
taken, their answers held."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ludotheque import Client
from ludotheque.v1 import game_service_pb2 as api

from service.api.http2_limits import CONTROL_BURST, MAX_HEADER_BLOCK, MAX_PINNED
from service.bench import floods
from service.bench.h2 import ENHANCE_YOUR_CALM
from tests.support.server import ServerProcess, running_server

BUDGET = 64 * 1024 * 1024  # what a flood may send at most (the floods of the issue went on for ever)
# What a cut flood may have sent: what the server read before the cut, plus what the
# kernel's buffers on both sides took meanwhile (a flood is sent 64 KiB at a time).
ACCEPTED = 2 * 1024 * 1024


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with running_server() as process:
        yield process
        assert process.process.poll() is None, f"the server died:\n{process.log()}"


@pytest.fixture(scope="module")
def game_id(server: ServerProcess) -> str:
    return Client(server.target).create_game("mooki", ["Ana", "Ben"]).game_id


def assert_cut(outcome: floods.Outcome, named: bytes) -> None:
    assert outcome.closed, f"not closed after {outcome.sent:,} bytes"
    assert [code for code, _ in outcome.goaways] == [ENHANCE_YOUR_CALM], outcome.goaways
    assert named in outcome.goaways[0][1], outcome.goaways
    assert outcome.sent <= ACCEPTED, f"{outcome.sent:,} bytes accepted"


def assert_serving(server: ServerProcess, game_id: str) -> None:
    """Another client's calls still work (on a connection of their own)."""
    with Client(server.target, retries=0) as player:
        assert player.get_game(game_id).game_id == game_id


def test_a_continuation_flood_is_cut_once_its_header_block_passes_the_cap(
    server: ServerProcess, game_id: str, volume: int
) -> None:
    outcome = floods.continuation_flood(server.target, BUDGET * volume)
    assert_cut(outcome, b"CONTINUATION flood")
    assert f"{MAX_HEADER_BLOCK // 1024} KiB".encode() in outcome.goaways[0][1]
    assert_serving(server, game_id)


def test_a_settings_flood_is_cut(server: ServerProcess, game_id: str, volume: int) -> None:
    outcome = floods.settings_flood(server.target, BUDGET * volume)
    assert_cut(outcome, b"SETTINGS flood")
    assert outcome.frames < 3 * CONTROL_BURST  # the SETTINGS ACKs it got: those of the allowance
    assert_serving(server, game_id)


def test_a_ping_flood_beside_a_call_in_flight_is_cut(server: ServerProcess, game_id: str, volume: int) -> None:
    outcome = floods.ping_flood(server.target, game_id, BUDGET * volume)
    assert_cut(outcome, b"PING flood")
    assert_serving(server, game_id)


def test_calls_on_a_zero_window_are_cut_past_the_streams_they_may_pin(server: ServerProcess, game_id: str) -> None:
    outcome = floods.zero_window(server.target, game_id, streams=20 * MAX_PINNED)
    assert_cut(outcome, b"zero window")
    assert_serving(server, game_id)


def test_a_client_with_a_large_but_fair_header_block_is_served(server: ServerProcess, game_id: str) -> None:
    """The cap is far above what grpcio takes in a call: it refuses metadata past its soft
    limit (8 KiB) at random, and always past 16 KiB; 6 KiB, under both, go through."""
    with Client(server.target, retries=0) as player:
        metadata = [(f"x-note-{n}", "n" * 1000) for n in range(6)]
        game = player.stub.GetGame(api.GetGameRequest(game_id=game_id), metadata=metadata, timeout=10)
        assert game.game_id == game_id
