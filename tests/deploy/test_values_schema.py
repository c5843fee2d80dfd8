"""Values the chart cannot honour are refused at install, with a message that names them:
by values.schema.json (types, enums, patterns, misspelt keys) or, for rules across
several values, by the templates."""

from __future__ import annotations

from typing import Any

import helm_python as helm
import pytest

from tests.deploy.chart import CHART, render


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"store": {"mode": "redis"}}, "at '/store/mode': value must be one of 'bundled', 'external', 'memory'"),
        ({"replicaCount": "two"}, "at '/replicaCount': got string, want integer"),
        ({"replicas": 3}, "additional properties 'replicas' not allowed"),
        ({"config": {"logLevel": "verbose"}}, "at '/config/logLevel': value must be one of"),
        ({"config": {"cacheSize": 0}}, "at '/config/cacheSize': minimum: got 0, want 1"),
        ({"config": {"workers": 4}}, "at '/config': additional properties 'workers' not allowed"),
        ({"store": {"mode": "external", "external": {"url": "http://redis:6379"}}}, "at '/store/external/url'"),
        ({"ports": {"grpc": 70000, "http": 8080}}, "at '/ports/grpc': maximum: got 70,000, want 65,535"),
        ({"secrets": {"secret": "too-short"}}, "at '/secrets/secret'"),
        ({"probes": {"readiness": {"grpcService": "ludotheque.GameService"}}}, "at '/probes/readiness/grpcService'"),
        ({"redis": {"maxmemory": "lots"}}, "at '/redis/maxmemory'"),
        ({"serviceMonitor": {"interval": "30 seconds"}}, "at '/serviceMonitor/interval'"),
    ],
)
def test_values_against_the_schema_are_refused_naming_the_value(values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmValuesError) as refused:
        render(values)
    assert "values don't meet the specifications of the schema" in str(refused.value)
    assert message in str(refused.value)
    with helm.Chart.load(CHART) as chart, pytest.raises(helm.HelmValuesError, match="- at '"):
        chart.validate_schema(values)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"store": {"mode": "external"}}, "store.mode=external needs store.external.url"),
        ({"store": {"external": {"url": "redis://redis:6379/0"}}}, 'store.mode is "bundled"'),
        ({"store": {"mode": "memory"}}, "store.mode=memory keeps the games inside one pod"),
        (
            {"store": {"mode": "memory"}, "replicaCount": 1, "autoscaling": {"enabled": True}},
            "needs replicaCount=1 and autoscaling.enabled=false",
        ),
        ({"autoscaling": {"enabled": True, "minReplicas": 5, "maxReplicas": 3}}, "minReplicas (5) exceeds"),
        ({"store": {"waitReplicas": 1}}, "store.waitReplicas needs Redis replicas"),
        (
            {"terminationGracePeriodSeconds": 15},
            "terminationGracePeriodSeconds (15) must exceed preStopSleepSeconds + config.shutdownGrace (15)",
        ),
    ],
)
def test_inconsistent_values_are_refused_by_the_templates(values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmRenderError, match="execution error") as refused:
        render(values)
    assert message in str(refused.value)
