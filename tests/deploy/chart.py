"""The Helm chart rendered by Helm's own engine, offline, and read back as objects.

helm-python-sdk binds Helm's Go library (the code behind `helm template` and `helm lint`),
so no helm binary and no cluster are needed; `lookup` finds nothing, as in `helm template`."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import helm_python as helm
import yaml

from tests.support.server import ROOT

CHART = ROOT / "deploy" / "helm" / "ludotheque"
RELEASE = "ludo"
NAMESPACE = "games"

Object = dict[str, Any]

# Secrets the "existing Secret" value sets name, with what an operator would put in them.
EXISTING_SECRETS: dict[str, dict[str, str]] = {
    "ludotheque-credentials": {
        "token-secret": "operator-managed-secret-0123456789-abcdef",
        "admin": "operator-admin-0123456789-0123456789abcdef",
        "old-token-secret": "the-secret-being-rotated-out-0123456789",
    },
    "ludotheque-api-keys": {"keys": "school-42:" + "0" * 64 + "\n"},
    "ludotheque-redis": {"url": "redis://:password@redis.data.svc:6379/0"},
}

# ConfigMaps an operator made, that values name.
EXISTING_CONFIG_MAPS: dict[str, dict[str, str]] = {
    "identity-provider-keys": {
        "jwks.json": (
            '{"keys": [{"kty": "EC", "crv": "P-256", "kid": "provider-1", '
            '"x": "khqzGC0qxJ84A4sO_B6pSrGQ-HceOUYiJlVSTdI4vFE", "y": "yKwckmGqq5b0VeB5yrUWi2btnWGNzwWX2Inb10LMyUo"}]}'
        )
    },
}

# The configurations the chart supports, each rendered, linted and validated by the tests.
VALUE_SETS: dict[str, dict[str, Any]] = {
    "default": {},
    "external-redis": {
        "store": {
            "mode": "external",
            "external": {"url": "redis://redis.data.svc:6379/0"},
            "waitReplicas": 1,
            "waitTimeout": 0.5,
        },
    },
    "cluster-redis": {
        "store": {"mode": "external", "external": {"url": "redis+cluster://redis-cluster.data.svc:6379"}},
        "replicaCount": 4,
    },
    "bundled-redis": {
        "store": {"mode": "bundled"},
        "redis": {
            "maxmemory": "2gb",
            "resources": {"requests": {"cpu": "500m", "memory": "3Gi"}, "limits": {"memory": "3Gi"}},
            "persistence": {"size": "20Gi", "storageClass": "fast-ssd"},
        },
    },
    "autoscaling": {
        "autoscaling": {"enabled": True, "minReplicas": 3, "maxReplicas": 12, "targetMemoryUtilizationPercentage": 80},
        "podAntiAffinity": "hard",
    },
    "monitoring-and-network-policy": {
        "serviceMonitor": {"enabled": True, "labels": {"release": "kube-prometheus-stack"}},
        "prometheusRule": {
            "enabled": True,
            "labels": {"release": "kube-prometheus-stack"},
            "additionalAlertLabels": {"team": "games"},
            "alerts": {"conflictStorm": {"enabled": False, "threshold": 0.1, "for": "5m", "severity": "warning"}},
        },
        "tracing": {"enabled": True, "endpoint": "http://otel-collector.monitoring:4317", "resourceAttributes": "a=b"},
        "networkPolicy": {
            "enabled": True,
            "ingressFrom": [
                {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}},
                {"podSelector": {"matchLabels": {"ludotheque-client": "true"}}},
            ],
        },
    },
    "existing-secret": {
        "secrets": {
            "existingSecret": "ludotheque-credentials",
            "existingSecretKeys": {
                "secret": "token-secret",
                "adminToken": "admin",
                "previousSecret": "old-token-secret",
            },
        },
        "store": {"mode": "external", "external": {"urlSecret": {"name": "ludotheque-redis", "key": "url"}}},
        "config": {"createPolicy": "api-keys", "createRate": 20, "liveGames": 10, "botGameRate": 2},
        "access": {"apiKeys": {"existingSecret": "ludotheque-api-keys", "key": "keys"}},
    },
    "api-keys-and-proxies": {
        "config": {"createPolicy": "api-keys", "trustedProxies": "10.0.0.0/8, 192.168.0.0/16"},
        "access": {"apiKeys": {"hashes": ["school-42:" + "a" * 64, "club:" + "b" * 64]}},
        "secrets": {"previousSecret": "the-secret-being-rotated-out-0123456789"},
    },
    "jwt-url": {
        "config": {
            "createPolicy": "jwt",
            "jwks": "https://id.example.com/.well-known/jwks.json",
            "jwtIssuer": "https://id.example.com",
            "jwtAudience": "ludotheque",
        },
    },
    "jwt-file": {
        "config": {"createPolicy": "jwt", "jwtIssuer": "https://id.example.com", "jwtAudience": "ludotheque"},
        "access": {"jwks": {"configMap": "identity-provider-keys"}},
    },
    "ingress-and-overrides": {
        "store": {"mode": "memory"},
        "replicaCount": 1,
        "secrets": {
            "secret": "a-secret-of-forty-bytes-0123456789abcdef",
            "adminToken": "the-admin-token-0123456789-0123456789",
        },
        "config": {"logLevel": "debug", "corsOrigins": "https://play.example.com", "shutdownGrace": 25.5},
        "ports": {"grpc": 9090, "http": 9091},
        "service": {"type": "NodePort", "headless": {"enabled": False}},
        "probes": {"liveness": {"type": "grpc", "grpcService": "ludotheque.v1.GameService"}},
        "preStopSleepSeconds": 0,
        "terminationGracePeriodSeconds": 40,
        "extraEnv": [{"name": "LUDOTHEQUE_CACHE_SIZE", "value": "500"}],
        "ingress": {
            "enabled": True,
            "className": "nginx",
            "annotations": {"nginx.ingress.kubernetes.io/proxy-buffering": "off"},
            "tls": [{"secretName": "ludotheque-tls", "hosts": ["ludotheque.example.com"]}],
        },
    },
    "limits-and-retention": {
        "config": {
            "maxGameEvents": "pirates=20000, picnic=5000",
            "snapshotInterval": 50,
            "finishedGameTtl": 86400,
            "abandonedGameTtl": 0,
            "expiredGamesDir": "/var/lib/ludotheque/expired",
            "retentionInterval": 30.5,
            "httpHeaderTimeout": 5,
            "httpIdleTimeout": 30,
            "maxStreamsPerConnection": 20,
            "maxFollowersPerGame": 200,
        },
        "expiredGamesVolume": {"persistentVolumeClaim": {"claimName": "expired-games"}},
    },
}


@dataclass(frozen=True)
class Rendered:
    objects: list[Object]
    notes: str

    def of_kind(self, kind: str) -> list[Object]:
        return [o for o in self.objects if o["kind"] == kind]

    def one(self, kind: str, name: str | None = None) -> Object:
        found = [o for o in self.of_kind(kind) if name is None or o["metadata"]["name"] == name]
        assert len(found) == 1, f"expected one {kind} {name or ''}, found {[o['metadata']['name'] for o in found]}"
        return found[0]

    def named(self, kind: str, name: str) -> Object | None:
        return next((o for o in self.of_kind(kind) if o["metadata"]["name"] == name), None)

    def pod_templates(self) -> list[Object]:
        """The pod template of every Deployment and StatefulSet."""
        return [w["spec"]["template"] for w in self.of_kind("Deployment") + self.of_kind("StatefulSet")]


def render(values: Mapping[str, Any] | None = None) -> Rendered:
    with helm.Chart.load(CHART) as chart:
        manifests = chart.render(dict(values or {}), name=RELEASE, namespace=NAMESPACE, is_install=True)
    objects: list[Object] = []
    notes = ""
    for path, text in sorted(manifests.items()):
        if path.endswith("NOTES.txt"):
            notes = text
            continue
        objects.extend(document for document in yaml.safe_load_all(text) if document)
    return Rendered(objects, notes)


def lint(values: Mapping[str, Any] | None = None) -> list[str]:
    """`helm lint --strict` findings worse than "info" (warnings and errors)."""
    report = helm.lint(CHART, dict(values or {}), strict=True)
    return [f"{m['path']}: {m['error']}" for m in report["messages"] if m["severity"] >= 2] + list(report["errors"])


def server_container(rendered: Rendered) -> Object:
    pod = rendered.one("Deployment")["spec"]["template"]["spec"]
    (container,) = [c for c in pod["containers"] if c["name"] == "ludotheque"]
    found: Object = container
    return found


def secret_data(rendered: Rendered, name: str) -> dict[str, str] | None:
    """A Secret's data as the pod would see it: rendered by the chart, or one of the
    EXISTING_SECRETS an operator made."""
    secret = rendered.named("Secret", name)
    if secret is not None:
        return {key: base64.b64decode(value).decode() for key, value in secret.get("data", {}).items()}
    return EXISTING_SECRETS.get(name)


def container_environment(rendered: Rendered, container: Object) -> dict[str, str]:
    """The container's environment as the kubelet builds it: envFrom first, then env
    (which wins), secretKeyRef and configMapKeyRef resolved, optional missing keys unset,
    and $(NAME) in a value replaced by the variable defined before it."""
    environment: dict[str, str] = {}
    for source in container.get("envFrom", []):
        config_map = rendered.one("ConfigMap", source["configMapRef"]["name"])
        environment.update(config_map.get("data", {}))
    for variable in container.get("env", []):
        if "value" in variable:
            environment[variable["name"]] = re.sub(
                r"\$\((\w+)\)", lambda named: environment.get(named.group(1), named.group(0)), variable["value"]
            )
            continue
        reference = variable["valueFrom"]
        if "fieldRef" in reference:  # the downward API: the pod's own name...
            environment[variable["name"]] = f"<{reference['fieldRef']['fieldPath']}>"
            continue
        if "secretKeyRef" in reference:
            ref = reference["secretKeyRef"]
            data = secret_data(rendered, ref["name"])
            assert data is not None, f"{variable['name']}: no Secret {ref['name']} rendered or expected"
        else:
            ref = reference["configMapKeyRef"]
            data = rendered.one("ConfigMap", ref["name"]).get("data", {})
        if ref["key"] in data:
            environment[variable["name"]] = data[ref["key"]]
        else:
            assert ref.get("optional"), f"{variable['name']}: key {ref['key']} missing from {ref['name']}"
    return environment


def walk(node: Any) -> Iterator[Any]:
    """Every dict and list inside a rendered object."""
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)
