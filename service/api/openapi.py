"""An OpenAPI 3 document of the REST API, generated from the proto descriptors.

The routes come from the google.api.http annotations (service/api/http_rules.py), the
schemas from the messages in the proto3 JSON mapping, the descriptions from the
protos' comments. scripts/genproto.py writes it to service/api/openapi.json (committed);
the server serves that file at /openapi.json."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, ServiceDescriptor

from service.api.http_rules import HttpBinding, http_bindings

Schema = dict[str, Any]

# The proto3 JSON mapping writes 64-bit integers as strings and reads integers either
# as numbers or as strings, so the schemas accept both.
_INT32: Schema = {"anyOf": [{"type": "integer", "format": "int32"}, {"type": "string", "pattern": "^-?[0-9]{1,10}$"}]}
_UINT32: Schema = {
    "anyOf": [
        {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
        {"type": "string", "pattern": "^[0-9]{1,10}$"},
    ]
}
_INT64: Schema = {"anyOf": [{"type": "string", "format": "int64", "pattern": "^-?[0-9]{1,19}$"}, {"type": "integer"}]}
_UINT64: Schema = {
    "anyOf": [{"type": "string", "format": "uint64", "pattern": "^[0-9]{1,19}$"}, {"type": "integer", "minimum": 0}]
}
_SCALARS: dict[int, Schema] = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_INT32: _INT32,
    FieldDescriptor.TYPE_SINT32: _INT32,
    FieldDescriptor.TYPE_SFIXED32: _INT32,
    FieldDescriptor.TYPE_UINT32: _UINT32,
    FieldDescriptor.TYPE_FIXED32: _UINT32,
    FieldDescriptor.TYPE_INT64: _INT64,
    FieldDescriptor.TYPE_SINT64: _INT64,
    FieldDescriptor.TYPE_SFIXED64: _INT64,
    FieldDescriptor.TYPE_UINT64: _UINT64,
    FieldDescriptor.TYPE_FIXED64: _UINT64,
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}
_WELL_KNOWN: dict[str, Schema] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string"}},
        "additionalProperties": True,
        "description": "A message of the type named by @type, in the JSON mapping.",
    },
}
STATUS = "google.rpc.Status"


def comments(descriptor_set: descriptor_pb2.FileDescriptorSet) -> dict[str, str]:
    """The leading comment of every message, field, enum, value, service and method,
    by full name (from a descriptor set built with source info)."""
    found: dict[str, str] = {}
    for file in descriptor_set.file:
        by_path = {
            tuple(location.path): location.leading_comments.strip()
            for location in file.source_code_info.location
            if location.leading_comments.strip()
        }
        for index, message in enumerate(file.message_type):
            _message_comments(message, (4, index), file.package, by_path, found)
        for index, enum in enumerate(file.enum_type):
            _enum_comments(enum, (5, index), file.package, by_path, found)
        for index, service in enumerate(file.service):
            name = f"{file.package}.{service.name}"
            found[name] = by_path.get((6, index), "")
            for method_index, method in enumerate(service.method):
                found[f"{name}.{method.name}"] = by_path.get((6, index, 2, method_index), "")
    return {name: _clean(text) for name, text in found.items() if text}


# Paths in SourceCodeInfo: 4 = message_type, 5 = enum_type, 6 = service; inside a
# message 2 = field, 3 = nested_type, 4 = enum_type; inside an enum 2 = value.
Comments = dict[tuple[int, ...], str]


def _enum_comments(
    enum: descriptor_pb2.EnumDescriptorProto,
    path: tuple[int, ...],
    scope: str,
    by_path: Comments,
    found: dict[str, str],
) -> None:
    name = f"{scope}.{enum.name}"
    found[name] = by_path.get(path, "")
    for index, value in enumerate(enum.value):
        found[f"{name}.{value.name}"] = by_path.get((*path, 2, index), "")


def _message_comments(
    message: descriptor_pb2.DescriptorProto, path: tuple[int, ...], scope: str, by_path: Comments, found: dict[str, str]
) -> None:
    name = f"{scope}.{message.name}"
    found[name] = by_path.get(path, "")
    for index, field in enumerate(message.field):
        found[f"{name}.{field.name}"] = by_path.get((*path, 2, index), "")
    for index, nested in enumerate(message.nested_type):
        _message_comments(nested, (*path, 3, index), name, by_path, found)
    for index, enum in enumerate(message.enum_type):
        _enum_comments(enum, (*path, 4, index), name, by_path, found)


def _clean(comment: str) -> str:
    # Lines meant for tools (buf lint ignores) are not documentation.
    return "\n".join(line for line in comment.splitlines() if not line.strip().startswith("buf:")).strip()


class _Builder:
    def __init__(self, notes: dict[str, str]) -> None:
        self.notes = notes
        self.schemas: dict[str, Schema] = {}

    def describe(self, schema: Schema, full_name: str) -> Schema:
        note = self.notes.get(full_name)
        return {**schema, "description": note} if note else schema

    def ref(self, message: Descriptor) -> Schema:
        if message.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[message.full_name])
        if message.full_name not in self.schemas:
            self.schemas[message.full_name] = {}  # reserve: messages may refer to themselves
            self.schemas[message.full_name] = self.message(message)
        return {"$ref": f"#/components/schemas/{message.full_name}"}

    def message(self, message: Descriptor, leave_out: Iterable[str] = ()) -> Schema:
        skipped = set(leave_out)
        properties = {
            field.json_name: self.describe(self.field(field), field.full_name)
            for field in message.fields
            if field.name not in skipped
        }
        schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
        choices = [
            f"{oneof.name}: at most one of {', '.join(f.json_name for f in oneof.fields)}"
            for oneof in message.oneofs
            if not oneof.name.startswith("_")  # proto3 `optional` fields are synthetic oneofs
        ]
        note = self.notes.get(message.full_name, "")
        if choices:
            note = (note + "\n\n" if note else "") + "\n".join(choices) + "."
        if note:
            schema["description"] = note
        return schema

    def field(self, field: FieldDescriptor) -> Schema:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value = field.message_type.fields_by_name["value"]
            return {"type": "object", "additionalProperties": self.single(value)}
        single = self.single(field)
        return {"type": "array", "items": single} if field.is_repeated else single

    def single(self, field: FieldDescriptor) -> Schema:
        if field.message_type is not None:
            return self.ref(field.message_type)
        if field.enum_type is not None:
            return self.enum(field.enum_type)
        return dict(_SCALARS[field.type])

    def enum(self, enum: EnumDescriptor) -> Schema:
        notes = {value.name: self.notes.get(f"{enum.full_name}.{value.name}", "") for value in enum.values}
        values = "; ".join(f"{name}: {note}" if note else name for name, note in notes.items())
        # Written by name; read by name or number, as the JSON mapping says.
        return {
            "anyOf": [
                {"type": "string", "enum": [value.name for value in enum.values]},
                {"type": "integer", "enum": [value.number for value in enum.values]},
            ],
            "description": values,
        }


def _parameters(builder: _Builder, binding: HttpBinding) -> list[Schema]:
    fields = binding.method.input_type.fields_by_name
    parameters = [
        builder.describe(
            {"name": name, "in": "path", "required": True, "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]+$"}},
            fields[name].full_name,
        )
        for name in binding.path_fields
    ]
    for field in binding.query_fields():
        schema = builder.field(field)
        parameter: Schema = {"name": field.json_name, "in": "query", "required": False, "schema": schema}
        if field.is_repeated:
            parameter.update(style="form", explode=True)
        parameters.append(builder.describe(parameter, field.full_name))
    return parameters


def _operation(builder: _Builder, binding: HttpBinding, service: ServiceDescriptor) -> Schema:
    method = binding.method
    note = builder.notes.get(method.full_name, "")
    operation: Schema = {
        "operationId": method.name,
        "tags": [service.name],
        "summary": note.split("\n")[0].rstrip("."),
        "description": note,
        "parameters": _parameters(builder, binding),
    }
    if binding.body == "*":
        schema = builder.message(method.input_type, leave_out=binding.path_fields)
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    elif binding.body:
        body_field = method.input_type.fields_by_name[binding.body]
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": builder.field(body_field)}},
        }
    if binding.streaming:
        success = {
            "description": (
                "Server-sent events (text/event-stream): one event per response message, its data "
                f"the {method.output_type.name} in JSON, its id the event's version (send Last-Event-ID "
                "to resume after it). A terminal error comes as an `error` event carrying a "
                "google.rpc.Status. 204: nothing will ever come (a finished game read past its end)."
            ),
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "description": "One server-sent event.",
                        "properties": {
                            "id": {"type": "string", "description": "The event's version."},
                            "event": {
                                "type": "string",
                                "enum": ["message", "error"],
                                "description": "message: a response; error: a terminal google.rpc.Status.",
                            },
                            "data": {
                                "type": "string",
                                "description": f"{method.output_type.name} (or google.rpc.Status) in JSON.",
                            },
                        },
                        "required": ["data"],
                    }
                }
            },
        }
        builder.ref(method.output_type)  # documented in the components all the same
        responses: Schema = {"200": success, "204": {"description": "No event will ever come."}}
    else:
        responses = {
            "200": {
                "description": f"A {method.output_type.name}.",
                "content": {"application/json": {"schema": builder.ref(method.output_type)}},
            }
        }
    responses["default"] = {
        "description": "An error: a google.rpc.Status with the standard HTTP status of its code.",
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{STATUS}"}}},
    }
    operation["responses"] = responses
    return operation


def render(service: ServiceDescriptor, notes: dict[str, str], version: str) -> Schema:
    """The OpenAPI document of `service`'s REST bindings."""
    builder = _Builder(notes)
    paths: dict[str, Schema] = {}
    for binding in http_bindings(service):
        paths.setdefault(binding.path, {})[binding.verb.lower()] = _operation(builder, binding, service)
    builder.schemas[STATUS] = {
        "type": "object",
        "description": "An error (google.rpc.Status): the gRPC code, a message for people, and details.",
        "properties": {
            "code": {"type": "integer", "format": "int32", "description": "The gRPC status code."},
            "message": {"type": "string", "description": "What went wrong, for people."},
            "details": {
                "type": "array",
                "items": dict(_WELL_KNOWN["google.protobuf.Any"]),
                "description": "google.rpc.BadRequest, PreconditionFailure, ErrorInfo...",
            },
        },
        "additionalProperties": False,
    }
    return {
        "openapi": "3.0.3",
        "info": {
            "title": f"Ludothèque {service.name}",
            "version": version,
            "description": notes.get(service.full_name, "")
            + "\n\nThe REST form of the gRPC API: JSON in the proto3 JSON mapping (lowerCamelCase "
            "names, 64-bit integers as strings, enums by name). Authenticate with "
            "`Authorization: Bearer <token>`; without it you are a spectator.",
        },
        "servers": [{"url": "/"}],
        "security": [{}, {"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(builder.schemas.items())),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
