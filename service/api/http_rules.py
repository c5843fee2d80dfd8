"""The REST bindings of a gRPC service, read from its google.api.http annotations.

Both the HTTP gateway (service/api/rest.py) and the OpenAPI generator
(service/api/openapi.py) work from these, so a new annotated RPC gets its route and its
documentation without a line of per-route code."""

from __future__ import annotations

import re
from dataclasses import dataclass

from google.api import annotations_pb2, http_pb2
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor, ServiceDescriptor

_VARIABLE = re.compile(r"\{([^{}=]+)\}")
_VERBS = ("get", "put", "post", "delete", "patch")


@dataclass(frozen=True, slots=True)
class HttpBinding:
    """One REST route of an RPC."""

    method: MethodDescriptor
    verb: str  # "GET", "POST"...
    path: str  # e.g. "/v1/games/{game_id}/events:stream"
    body: str  # "" (no body), "*" (the whole request) or a field name
    path_fields: tuple[str, ...]  # request fields bound by the path, e.g. ("game_id",)

    @property
    def route(self) -> str:
        """The path as an aiohttp route: a variable takes one segment and never the
        ":verb" after it (so /v1/games/{game_id}:export is not GetGame)."""
        return _VARIABLE.sub(lambda m: "{" + m.group(1) + ":[^/:]+}", self.path)

    @property
    def streaming(self) -> bool:
        return bool(self.method.server_streaming)

    def query_fields(self) -> list[FieldDescriptor]:
        """Request fields neither in the path nor in the body: they come from the query."""
        if self.body == "*":
            return []
        bound = set(self.path_fields) | ({self.body} if self.body else set())
        return [f for f in self.method.input_type.fields if f.name not in bound]


def _rule_bindings(method: MethodDescriptor, rule: http_pb2.HttpRule) -> list[HttpBinding]:
    pattern = rule.WhichOneof("pattern")
    if pattern in _VERBS:
        verb, path = pattern.upper(), getattr(rule, pattern)
    elif pattern == "custom":
        verb, path = rule.custom.kind.upper(), rule.custom.path
    else:
        raise ValueError(f"{method.full_name}: an http rule needs a pattern")
    if "=" in path or "**" in path:
        raise ValueError(f"{method.full_name}: path templates with patterns are not supported: {path}")
    fields = tuple(_VARIABLE.findall(path))
    for name in fields:
        if name not in method.input_type.fields_by_name:
            raise ValueError(f"{method.full_name}: {path} names no request field {name!r}")
    binding = HttpBinding(method, verb, path, rule.body, fields)
    return [binding, *(b for extra in rule.additional_bindings for b in _rule_bindings(method, extra))]


def http_bindings(service: ServiceDescriptor) -> list[HttpBinding]:
    """Every annotated RPC's routes, in the proto's order."""
    bindings: list[HttpBinding] = []
    for method in service.methods:
        options = method.GetOptions()
        if options.HasExtension(annotations_pb2.http):
            bindings += _rule_bindings(method, options.Extensions[annotations_pb2.http])
    return bindings
