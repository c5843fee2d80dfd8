"""The Grafana dashboard reads only what the service exports: every metric its queries
name (histogram suffixes included) and every label they filter or group by is in a live
server's /metrics after a little play. It is also a well-formed dashboard."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from ludotheque import Client
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.parser import text_string_to_metric_families

from service.app.observe.metrics import Metrics
from tests.support.kinds import SERVED_KINDS
from tests.support.rest import Rest
from tests.support.server import ROOT, running_server

DASHBOARD = ROOT / "deploy" / "grafana" / "ludotheque.json"
# Labels Prometheus adds to every scraped series (Kubernetes service discovery).
TARGET_LABELS = {"namespace", "pod", "job", "instance", "service", "container", "endpoint"}
# Sample names a family of each type exports (prometheus_client, text format).
SUFFIXES = {
    "counter": ("_total", "_created"),
    "gauge": ("",),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("", "_count", "_sum", "_created"),
}
PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "and", "or", "unless"}
NAME = r"[A-Za-z_:][A-Za-z0-9_:]*"


def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


def panels(board: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in board["panels"]:
        yield panel
        yield from panel.get("panels", [])


def queries(board: dict[str, Any]) -> list[str]:
    """Every PromQL expression: panel targets and template variables' label_values()."""
    found = [target["expr"] for panel in panels(board) for target in panel.get("targets", [])]
    for variable in board["templating"]["list"]:
        if variable["type"] == "query":
            call = re.fullmatch(rf"label_values\((.*),\s*({NAME})\)", variable["query"]["query"])
            assert call, f"variable {variable['name']}: expected label_values(selector, label)"
            found.append(f"sum by ({call.group(2)}) ({call.group(1)})")
    return found


def metric_names(expression: str) -> set[str]:
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expression)  # label values
    text = re.sub(r"\{[^}]*\}", "{}", text)  # matchers
    text = re.sub(r"\[[^\]]*\]", "[]", text)  # ranges
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for word in re.finditer(NAME, text):
        if text[word.end() :].lstrip().startswith("(") or word.group() in PROMQL_WORDS:
            continue  # a function or an operator
        names.add(word.group())
    return names


def matcher_labels(expression: str) -> Iterator[tuple[str, str]]:
    """(metric, label) for every label matcher of a selector."""
    for selector in re.finditer(rf"({NAME})\s*\{{([^}}]*)\}}", expression):
        for label in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)", selector.group(2)):
            yield selector.group(1), label


def grouping_labels(expression: str) -> set[str]:
    lists = re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", expression)
    return {label.strip() for labels in lists for label in labels.split(",") if label.strip()}


def test_expressions_are_read_as_intended() -> None:
    expression = (
        'histogram_quantile(0.99, sum by (le, kind) (rate(x_seconds_bucket{pod=~"$pod"}[$__rate_interval])))'
        " / on (kind) y_total"
    )
    assert metric_names(expression) == {"x_seconds_bucket", "y_total"}
    assert set(matcher_labels(expression)) == {("x_seconds_bucket", "pod")}
    assert grouping_labels(expression) == {"le", "kind"}


def play_a_little(server_target: str, http: str) -> None:
    """Enough traffic for every labelled metric the dashboard reads to have samples."""
    with Client(server_target) as lobby:
        for kind in SERVED_KINDS:
            lobby.create_game(kind, [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}])  # plays out
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        cleo = lobby.with_token(created.seat_tokens[0])
        draw = mooki.Command(draw=mooki.Draw(pile=0))
        cleo.submit(created.game_id, draw, command_id="first")
        cleo.submit(created.game_id, draw, command_id="first")  # a retry: an idempotent replay
        with pytest.raises(grpc.RpcError):
            cleo.submit(created.game_id, draw)  # a draw after a draw: illegal
        stream = lobby.stream(created.game_id)
        next(stream)
        rest = Rest(http)
        assert rest.get(f"/v1/games/{created.game_id}").status == 200
        assert rest.get("/v1/games/unknown").status == 404
        stream.close()


def declared_labels() -> dict[str, set[str]]:
    """Sample name -> label names, as service/metrics.py declares them: the labels of a
    metric that has no samples yet (conflicts, store errors) show nowhere in /metrics."""
    found: dict[str, set[str]] = {}
    for collector in vars(Metrics()).values():
        if isinstance(collector, MetricWrapperBase):
            for family in collector.describe():
                for suffix in SUFFIXES[family.type]:
                    found[family.name + suffix] = set(collector._labelnames)
    return found


def exported(metrics_text: str) -> dict[str, set[str]]:
    """Sample name -> its labels, for everything /metrics exports. A metric with no
    samples yet counts by the type /metrics declares, with the labels the code declares."""
    declared = declared_labels()
    found: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(metrics_text):
        for suffix in SUFFIXES[family.type]:
            found.setdefault(family.name + suffix, set())
        if not family.samples:
            for suffix in SUFFIXES[family.type]:
                found[family.name + suffix] = declared[family.name + suffix]
        for sample in family.samples:
            found[sample.name].update(sample.labels)
    return found


def test_every_metric_and_label_the_dashboard_reads_is_exported() -> None:
    with running_server() as server:
        play_a_little(server.target, server.http)
        scraped = exported(Rest(server.http).get("/metrics").body.decode())
    board = dashboard()
    expressions = queries(board)
    used = set().union(*(metric_names(e) for e in expressions))
    assert used - scraped.keys() == set(), "the dashboard reads metrics the service does not export"
    assert any(name.endswith("_bucket") for name in used)
    for expression in expressions:
        for metric, label in matcher_labels(expression):
            assert label in scraped[metric] | TARGET_LABELS, f"{metric} has no label {label}: {expression}"
        available = set().union(*(scraped[name] for name in metric_names(expression))) | TARGET_LABELS
        assert grouping_labels(expression) <= available, expression


def test_the_dashboard_covers_what_operators_watch() -> None:
    expressions = queries(dashboard())
    reads = set().union(*(metric_names(e) for e in expressions))
    wanted = {
        "request rate": {"grpc_server_handled_total", "ludotheque_http_requests_total"},
        "latency": {"grpc_server_handling_seconds_bucket", "ludotheque_http_request_duration_seconds_bucket"},
        "moves": {"ludotheque_commands_total", "ludotheque_command_duration_seconds_bucket"},
        "conflicts": {"ludotheque_append_conflicts_total", "ludotheque_idempotent_replays_total"},
        "subscriptions": {"ludotheque_active_subscriptions"},
        "games": {"ludotheque_games_created_total", "ludotheque_games_finished_total", "ludotheque_cached_games"},
        "store": {"ludotheque_store_operation_duration_seconds_bucket", "ludotheque_store_errors_total"},
    }
    for topic, metrics in wanted.items():
        assert metrics <= reads, f"{topic}: the dashboard does not read {metrics - reads}"
    assert any("histogram_quantile(0.99" in e for e in expressions)
    assert any("by (kind)" in e and "ludotheque_commands_total" in e for e in expressions)  # moves per game kind
    assert any('grpc_code!="OK"' in e for e in expressions)  # errors


def test_the_dashboard_is_well_formed() -> None:
    board = dashboard()
    assert board["uid"] and board["title"] and board["schemaVersion"] >= 36
    variables = {v["name"] for v in board["templating"]["list"]}
    assert {"datasource", "namespace", "pod"} <= variables
    all_panels = list(panels(board))
    assert len({p["id"] for p in all_panels}) == len(all_panels), "panel ids repeat"
    taken: set[tuple[int, int]] = set()
    for panel in all_panels:
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
        cells = {(grid["x"] + dx, grid["y"] + dy) for dx in range(grid["w"]) for dy in range(grid["h"])}
        assert not cells & taken, f"panel {panel['title']!r} overlaps another"
        taken |= cells
        if panel["type"] == "row":
            continue
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert panel["targets"] and panel.get("description"), panel["title"]
        refs = [t["refId"] for t in panel["targets"]]
        assert len(refs) == len(set(refs)), panel["title"]
        for target in panel["targets"]:
            used = set(re.findall(r"\$(\w+)", target["expr"])) - {"__rate_interval"}
            assert used <= variables, f"{panel['title']}: undefined variables {used - variables}"
