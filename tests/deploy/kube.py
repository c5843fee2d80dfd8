"""Validation of rendered objects: built-in kinds against the Kubernetes OpenAPI schemas
(the JSON schemas kubernetes-validate ships, strict: unknown fields are errors), the
Prometheus Operator's ServiceMonitor and PrometheusRule against the fields of their CRDs
that a chart may set.

kubernetes_validate.validate() reads the 2 MB of shared definitions again for every
object; loading each schema once here makes the chart tests several times faster."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from typing import Any

import jsonschema
from referencing import Registry, Resource

_SCHEMAS = files("kubernetes_validate") / "kubernetes-json-schema"

# A field a chart may set on a ServiceMonitor (monitoring.coreos.com/v1), with the CRD's
# types and patterns; anything else is refused (the CRD's own schema, cut to what we use).
_DURATION = {
    "type": "string",
    "pattern": r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$",
}
_LABEL_SELECTOR = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "matchLabels": {"type": "object", "additionalProperties": {"type": "string"}},
        "matchExpressions": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["key", "operator"],
                "properties": {
                    "key": {"type": "string"},
                    "operator": {"enum": ["In", "NotIn", "Exists", "DoesNotExist"]},
                    "values": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    },
}
_RELABELINGS = {"type": "array", "items": {"type": "object"}}
SERVICE_MONITOR_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "ServiceMonitor"},
        "metadata": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "namespace": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "additionalProperties": False,
        },
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["endpoints", "selector"],
            "properties": {
                "selector": _LABEL_SELECTOR,
                "namespaceSelector": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "any": {"type": "boolean"},
                        "matchNames": {"type": "array", "items": {"type": "string"}},
                    },
                },
                "jobLabel": {"type": "string"},
                "targetLabels": {"type": "array", "items": {"type": "string"}},
                "podTargetLabels": {"type": "array", "items": {"type": "string"}},
                "sampleLimit": {"type": "integer"},
                "endpoints": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "port": {"type": "string"},
                            "targetPort": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                            "path": {"type": "string"},
                            "scheme": {"enum": ["http", "https", "HTTP", "HTTPS"]},
                            "interval": _DURATION,
                            "scrapeTimeout": _DURATION,
                            "honorLabels": {"type": "boolean"},
                            "honorTimestamps": {"type": "boolean"},
                            "params": {
                                "type": "object",
                                "additionalProperties": {"type": "array", "items": {"type": "string"}},
                            },
                            "relabelings": _RELABELINGS,
                            "metricRelabelings": _RELABELINGS,
                        },
                    },
                },
            },
        },
    },
}

_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
# A PrometheusRule (monitoring.coreos.com/v1): the fields of its CRD a chart may set.
PROMETHEUS_RULE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "PrometheusRule"},
        "metadata": SERVICE_MONITOR_SCHEMA["properties"]["metadata"],
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["groups"],
            "properties": {
                "groups": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["name", "rules"],
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "interval": _DURATION,
                            "rules": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "additionalProperties": False,
                                    "required": ["expr"],
                                    "oneOf": [{"required": ["alert"]}, {"required": ["record"]}],
                                    "properties": {
                                        "alert": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                                        "record": {"type": "string"},
                                        "expr": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]},
                                        "for": _DURATION,
                                        "keep_firing_for": _DURATION,
                                        "labels": _STRING_MAP,
                                        "annotations": _STRING_MAP,
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# Kinds whose names become DNS labels (a Service's name is its DNS name, at most 63).
_LABEL_NAMED = {"Service", "StatefulSet", "Deployment"}


def _directory(kubernetes_version: str) -> Any:
    directory = _SCHEMAS / f"v{kubernetes_version}.0-local-strict"
    assert directory.is_dir(), f"kubernetes-validate has no schemas for Kubernetes {kubernetes_version}"
    return directory


@cache
def _definitions(kubernetes_version: str) -> Registry[Any]:
    shared = json.loads((_directory(kubernetes_version) / "_definitions.json").read_text())
    return Resource.from_contents(shared) @ Registry()


@cache
def _validator(kubernetes_version: str, kind: str, api_version: str) -> jsonschema.Draft202012Validator | None:
    if kind == "ServiceMonitor":
        return jsonschema.Draft202012Validator(SERVICE_MONITOR_SCHEMA)
    if kind == "PrometheusRule":
        return jsonschema.Draft202012Validator(PROMETHEUS_RULE_SCHEMA)
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)  # networking.k8s.io/v1 -> networking-v1
    path = _directory(kubernetes_version) / f"{kind.lower()}-{group_version}.json"
    if not path.is_file():
        return None
    schema = json.loads(path.read_text())
    return jsonschema.Draft202012Validator(
        schema, registry=Resource.from_contents(schema) @ _definitions(kubernetes_version)
    )


def problems(obj: dict[str, Any], kubernetes_version: str) -> list[str]:
    """What is wrong with a rendered object, for one Kubernetes version ([] if nothing)."""
    kind, name = obj.get("kind", "?"), obj.get("metadata", {}).get("name", "?")
    validator = _validator(kubernetes_version, kind, obj.get("apiVersion", "?"))
    if validator is None:
        return [f"{kind}/{name}: no {obj.get('apiVersion')} {kind} in Kubernetes {kubernetes_version}"]
    found = [
        f"{kind}/{name} (Kubernetes {kubernetes_version}): {'.'.join(map(str, error.path))}: {error.message}"
        for error in validator.iter_errors(obj)
    ]
    pattern = _DNS_LABEL if kind in _LABEL_NAMED else _DNS_SUBDOMAIN
    limit = 63 if kind in _LABEL_NAMED else 253
    if not (pattern.match(name) and len(name) <= limit):
        found.append(f"{kind}/{name}: not a valid name for a {kind}")
    return found
