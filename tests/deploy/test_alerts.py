"""The chart's alerting rules (a PrometheusRule) read only what the service exports:
every metric their expressions name, every label they filter or group by, is in a live
server's /metrics after a little play (as the dashboard's queries are, in
test_dashboard.py); each selects this release's series, and the values tune them."""

from __future__ import annotations

from typing import Any

import yaml

from tests.deploy.chart import CHART, NAMESPACE, Object, render
from tests.deploy.test_dashboard import (
    TARGET_LABELS,
    exported,
    grouping_labels,
    matcher_labels,
    metric_names,
    play_a_little,
)
from tests.support.rest import Rest
from tests.support.server import running_server

ALERTS = {
    "LudothequeRedisMemoryPressure",
    "LudothequeStoreShardUnwritable",
    "LudothequeHistoryLost",
    "LudothequeRedisFailoverErrors",
    "LudothequeConflictStorm",
}


def rules(values: dict[str, Any] | None = None) -> list[Object]:
    rendered = render({"prometheusRule": {"enabled": True, **(values or {})}})
    return [rule for group in rendered.one("PrometheusRule")["spec"]["groups"] for rule in group["rules"]]


def test_every_metric_and_label_the_alerts_read_is_exported() -> None:
    with running_server() as server:
        play_a_little(server.target, server.http)
        scraped = exported(Rest(server.http).get("/metrics").body.decode())
    for rule in rules():
        expression = rule["expr"]
        names = metric_names(expression)
        assert names and names <= scraped.keys(), f"{rule['alert']} reads {names - scraped.keys()}"
        for metric, label in matcher_labels(expression):
            assert label in scraped[metric] | TARGET_LABELS, f"{metric} has no label {label}: {expression}"
        available = set().union(*(scraped[name] for name in names)) | TARGET_LABELS
        assert grouping_labels(expression) <= available, expression


def test_each_alert_reads_this_releases_series_as_the_service_monitor_scrapes_them() -> None:
    rendered = render({"prometheusRule": {"enabled": True}, "serviceMonitor": {"enabled": True}})
    monitor = rendered.one("ServiceMonitor")
    (scraped,) = [
        service
        for service in rendered.of_kind("Service")
        if monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    ]
    job = scraped["metadata"]["name"]  # the Prometheus Operator names the job after the Service
    found = rules()
    assert {rule["alert"] for rule in found} == ALERTS
    for rule in found:
        for metric in metric_names(rule["expr"]):
            assert f'{metric}{{namespace="{NAMESPACE}",job="{job}"' in rule["expr"], rule["expr"]
        assert rule["labels"]["severity"] and rule["annotations"]["summary"] and rule["annotations"]["description"]


def test_the_values_turn_alerts_off_and_tune_them() -> None:
    tuned = {
        rule["alert"]: rule
        for rule in rules(
            {
                "additionalAlertLabels": {"team": "games"},
                "alerts": {
                    "redisMemoryPressure": {"enabled": True, "threshold": 0.7, "for": "10m", "severity": "page"},
                    "historyLost": {"enabled": False, "for": "0m", "severity": "critical"},
                },
            }
        )
    }
    assert set(tuned) == ALERTS - {"LudothequeHistoryLost"}
    memory = tuned["LudothequeRedisMemoryPressure"]
    assert memory["expr"].endswith("> 0.7") and memory["for"] == "10m"
    assert memory["labels"] == {"severity": "page", "team": "games"}
    assert render().of_kind("PrometheusRule") == []  # off unless asked for


def test_memory_pressure_is_an_alert_before_readiness_fails() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["prometheusRule"]["alerts"]["redisMemoryPressure"]["threshold"] < values["store"]["memoryThreshold"]
