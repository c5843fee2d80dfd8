"""After a scripted game, /metrics holds exactly the expected counts; the metrics table
of docs/OPERATIONS.md names every series a server exports, the process's own too."""

from __future__ import annotations

import re

import grpc
import pytest
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from prometheus_client.parser import text_string_to_metric_families

from tests.support.rest import Rest
from tests.support.server import ROOT, running_server


def scrape(rest: Rest) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    samples = {}
    for family in text_string_to_metric_families(rest.get("/metrics").body.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_a_scripted_game_shows_in_the_metrics() -> None:
    with running_server() as server, Client(server.target) as lobby:
        rest = Rest(server.http)
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        game_id = created.game_id
        cleo, robin = (lobby.with_token(t) for t in created.seat_tokens)
        draw = mooki.Command(draw=mooki.Draw(pile=0))
        place = mooki.Command(place=mooki.Place(side=mooki.SIDE_SHOWN))
        cleo.submit(game_id, draw, command_id="d1")
        cleo.submit(game_id, draw, command_id="d1")  # a retry: replayed
        cleo.submit(game_id, place)
        with pytest.raises(grpc.RpcError):
            cleo.submit(game_id, draw)  # not her turn: illegal
        with pytest.raises(grpc.RpcError):
            robin.submit(game_id, draw, expected_version=1)  # stale
        robin_draw = rest.with_token(created.seat_tokens[1]).post(
            f"/v1/games/{game_id}/commands", {"command": {"mooki": {"draw": {"pile": 1}}}}
        )
        assert robin_draw.status == 200
        lobby.create_game("mooki", [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}])  # plays out
        events = rest.get(f"/v1/games/{game_id}/events")
        assert events.status == 200
        stream = lobby.stream(game_id)
        next(stream)  # once an event came, the subscription is open
        assert value(scrape(rest), "ludotheque_active_subscriptions") == 1
        stream.close()

        samples = scrape(rest)
        assert value(samples, "ludotheque_games_created_total", kind="mooki") == 2
        assert value(samples, "ludotheque_games_finished_total", kind="mooki", outcome="won") == 1
        accepted = {"kind": "mooki", "outcome": "accepted"}
        assert value(samples, "ludotheque_commands_total", command="draw", **accepted) == 2
        assert value(samples, "ludotheque_commands_total", command="place", **accepted) == 1
        assert value(samples, "ludotheque_commands_total", kind="mooki", command="draw", outcome="replayed") == 1
        assert value(samples, "ludotheque_commands_total", kind="mooki", command="draw", outcome="illegal") == 1
        assert value(samples, "ludotheque_commands_total", kind="mooki", command="draw", outcome="stale") == 1
        assert value(samples, "ludotheque_idempotent_replays_total", kind="mooki") == 1
        assert value(samples, "ludotheque_command_duration_seconds_count", kind="mooki") == 3
        assert value(samples, "ludotheque_store_operation_duration_seconds_count", operation="append") == 3
        assert value(samples, "ludotheque_store_operation_duration_seconds_count", operation="create") == 2
        assert value(samples, "ludotheque_append_conflicts_total", kind="mooki") == 0
        assert value(samples, "ludotheque_cached_games") == 2
        # The process's own series, and no `*_created` ones.
        names = {name for name, _ in samples}
        assert {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds"} <= names
        assert "process_max_fds" in names and not [name for name in names if name.endswith("_created")]
        submit = {"grpc_type": "unary", "grpc_service": "ludotheque.v1.GameService", "grpc_method": "SubmitCommand"}
        assert value(samples, "grpc_server_started_total", **submit) == 5
        assert value(samples, "grpc_server_handled_total", grpc_code="OK", **submit) == 3
        assert value(samples, "grpc_server_handled_total", grpc_code="FAILED_PRECONDITION", **submit) == 1
        assert value(samples, "grpc_server_handled_total", grpc_code="ABORTED", **submit) == 1
        assert value(samples, "grpc_server_handling_seconds_count", **submit) == 5
        route = {"method": "POST", "route": "/v1/games/{game_id}/commands"}
        assert value(samples, "ludotheque_http_requests_total", status="200", **route) == 1
        assert value(samples, "ludotheque_http_request_duration_seconds_count", **route) == 1
        assert (
            value(
                samples,
                "ludotheque_http_requests_total",
                method="GET",
                route="/v1/games/{game_id}/events",
                status="200",
            )
            == 1
        )


def test_the_operations_metrics_table_names_every_series_a_server_exports() -> None:
    """Scraped, not declared: the standard process collector's series are in /metrics
    without being declared by the service (process_virtual_memory_bytes was missing)."""
    table = [line for line in (ROOT / "docs" / "OPERATIONS.md").read_text().splitlines() if line.startswith("| `")]
    named = {name for line in table for name in re.findall(r"`([a-z_]+)`", line.split(" | ")[0])}
    with running_server() as server:
        exported = {
            line.split()[2]
            for line in Rest(server.http).get("/metrics").body.decode().splitlines()
            if line.startswith("# TYPE ")
        }
    assert "process_virtual_memory_bytes" in exported
    assert exported - named == set(), "docs/OPERATIONS.md's metrics table misses these"
