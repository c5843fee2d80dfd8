"""The chart's alerting rules (templates/prometheusrule.yaml): rendered by Helm's engine,
each expression parsed by a PromQL parser (promql-parser, the Rust parser's binding) and
read back from its syntax tree, and every metric and label it reads exported by a live
server after a little play, as the dashboard's are (test_dashboard.py). The few series
that come from elsewhere are listed here, each with where it comes from."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import promql_parser
import pytest
import yaml

from tests.deploy.chart import CHART, NAMESPACE, RELEASE, Object, render
from tests.deploy.test_dashboard import TARGET_LABELS, exported, play_a_little
from tests.support.rest import Rest
from tests.support.server import running_server

ALERTING = {"prometheusRule": {"enabled": True}}
# Series no ludotheque server exports, with their labels and their source.
EXTERNAL: dict[str, tuple[set[str], str]] = {
    # kube-state-metrics (part of kube-prometheus-stack): one series per container.
    "kube_pod_container_status_restarts_total": ({"namespace", "pod", "container", "uid"}, "kube-state-metrics"),
}
ALERTS = {
    "LudothequeServerErrors",
    "LudothequeMoveLatencyHigh",
    "LudothequeRedisUnavailable",
    "LudothequeRedisNearMaxmemory",
    "LudothequeAppendConflicts",
    "LudothequeConflictStorm",
    "LudothequeStreamsStalled",
    "LudothequePodsRestarting",
    "LudothequeStoreShardUnwritable",
    "LudothequeRedisFailoverErrors",
    "LudothequeHistoryLost",
    "LudothequeHistoryLossUnrecorded",
}
SEVERITIES = {"critical", "warning", "info"}
DURATION = re.compile(r"^[0-9]+(ms|s|m|h|d)$")


@dataclass
class Reads:
    """What an expression reads: each selector's metric and matcher labels, and the
    labels it groups or matches by."""

    selectors: list[tuple[str, set[str]]] = field(default_factory=list)
    grouping: set[str] = field(default_factory=set)


def reads(expression: str) -> Reads:
    found = Reads()
    _walk(promql_parser.parse(expression), found)
    return found


def _walk(node: Any, found: Reads) -> None:
    if isinstance(node, promql_parser.MatrixSelector):
        node = node.vector_selector
    if isinstance(node, promql_parser.VectorSelector):
        labels = {matcher.name for matcher in node.matchers.matchers}
        found.selectors.append((node.name or "", labels - {"__name__"}))
    elif isinstance(node, promql_parser.AggregateExpr):
        if node.modifier is not None:
            found.grouping |= set(node.modifier.labels)
        _walk(node.expr, found)
        if node.param is not None:
            _walk(node.param, found)
    elif isinstance(node, promql_parser.BinaryExpr):
        matching = node.modifier.matching if node.modifier is not None else None
        if matching is not None:
            found.grouping |= set(matching.labels)
        _walk(node.lhs, found)
        _walk(node.rhs, found)
    elif isinstance(node, promql_parser.Call):
        for argument in node.args:
            _walk(argument, found)
    elif isinstance(node, promql_parser.ParenExpr | promql_parser.UnaryExpr | promql_parser.SubqueryExpr):
        _walk(node.expr, found)
    else:
        assert isinstance(node, promql_parser.NumberLiteral | promql_parser.StringLiteral), type(node)


def rules(values: dict[str, Any] | None = None) -> list[Object]:
    (rule_object,) = render({**ALERTING, **(values or {})}).of_kind("PrometheusRule")
    return [rule for group in rule_object["spec"]["groups"] for rule in group["rules"]]


@cache
def default_rules() -> tuple[Object, ...]:
    return tuple(rules())


def alerts() -> Iterator[Object]:
    yield from (rule for rule in default_rules() if "alert" in rule)


def test_expressions_are_read_from_their_syntax_tree() -> None:
    read = reads('sum by (le, kind) (rate(x_bucket{pod=~"a.*", job="j"}[5m])) / on (kind) group_left y_total > 2')
    assert read.selectors == [("x_bucket", {"pod", "job"}), ("y_total", set())]
    assert read.grouping == {"le", "kind"}
    with pytest.raises(Exception):  # noqa: B017 - the parser raises its own error type
        promql_parser.parse("sum(rate(x[5m])")


def test_every_alert_reads_only_what_the_server_exports() -> None:
    with running_server() as server:
        play_a_little(server.target, server.http)
        scraped = exported(Rest(server.http).get("/metrics").body.decode())
    available = {**scraped, **{name: labels for name, (labels, _) in EXTERNAL.items()}}
    read_anything = set()
    for rule in alerts():
        read = reads(rule["expr"])
        assert read.selectors, rule["alert"]
        for metric, labels in read.selectors:
            assert metric in available, f"{rule['alert']} reads {metric}, which nothing exports"
            assert labels <= available[metric] | TARGET_LABELS, f"{rule['alert']}: {metric} has no {labels}"
            read_anything.add(metric)
        known = set().union(*(available[metric] for metric, _ in read.selectors)) | TARGET_LABELS | {"le"}
        assert read.grouping <= known, f"{rule['alert']} groups by {read.grouping - known}"
    assert set(EXTERNAL) <= read_anything, "an external series no alert reads: take it off the list"


def test_every_alert_is_well_formed_and_scoped_to_the_release() -> None:
    names = [rule["alert"] for rule in alerts()]
    assert len(names) == len(set(names)) and set(names) == ALERTS
    for rule in alerts():
        assert re.fullmatch(r"Ludotheque[A-Z][A-Za-z]+", rule["alert"])
        assert DURATION.match(rule["for"]) and rule["labels"]["severity"] in SEVERITIES
        assert {"summary", "description", "runbook_url"} <= rule["annotations"].keys()
        assert rule["annotations"]["runbook_url"] == f"docs/OPERATIONS.md#{rule['alert'].lower()}"
        for _, labels in reads(rule["expr"]).selectors:
            assert "namespace" in labels, f"{rule['alert']} reads series of every namespace"
        assert f'namespace="{NAMESPACE}"' in rule["expr"]
    restarts = next(rule for rule in alerts() if rule["alert"] == "LudothequePodsRestarting")
    assert f'pod=~"{RELEASE}-ludotheque-.+"' in restarts["expr"]


def test_the_values_tune_and_turn_off_each_alert() -> None:
    tuned = {
        "prometheusRule": {
            "enabled": True,
            "selector": 'cluster="eu", service="games"',
            "runbookBaseUrl": "https://wiki.example.com/ops",
            "alerts": {
                "serverErrors": {"enabled": True, "threshold": 0.05, "for": "10m", "severity": "warning"},
                "podRestarts": {"enabled": False, "threshold": 2, "for": "0m", "severity": "warning"},
            },
        }
    }
    found = {rule["alert"]: rule for rule in rules(tuned)}
    assert set(found) == ALERTS - {"LudothequePodsRestarting"}
    errors = found["LudothequeServerErrors"]
    assert errors["expr"].rstrip().endswith("> 0.05") and errors["for"] == "10m"
    assert errors["labels"] == {"severity": "warning"}
    assert errors["annotations"]["runbook_url"] == "https://wiki.example.com/ops#ludothequeservererrors"
    assert all(labels >= {"cluster", "service"} for _, labels in reads(errors["expr"]).selectors)
    assert render().of_kind("PrometheusRule") == []  # off by default


def test_every_alert_carries_the_additional_labels_but_keeps_its_severity() -> None:
    labelled = rules({"prometheusRule": {"enabled": True, "additionalAlertLabels": {"team": "games", "severity": "x"}}})
    assert len(labelled) == len(ALERTS)
    for rule in labelled:
        assert rule["labels"]["team"] == "games" and rule["labels"]["severity"] in SEVERITIES, rule["alert"]


def test_the_default_selector_reads_the_series_the_service_monitor_scrapes() -> None:
    rendered = render({**ALERTING, "serviceMonitor": {"enabled": True}})
    monitor = rendered.one("ServiceMonitor")
    (scraped,) = [
        service
        for service in rendered.of_kind("Service")
        if monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    ]
    job = scraped["metadata"]["name"]  # the Prometheus Operator names the job after the Service
    for rule in alerts():
        if rule["alert"] != "LudothequePodsRestarting":  # kube-state-metrics' series, by pod name
            assert f'job="{job}"' in rule["expr"], rule["alert"]


def test_memory_is_an_alert_before_readiness_fails() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["prometheusRule"]["alerts"]["redisMemory"]["threshold"] < values["store"]["memoryThreshold"]
