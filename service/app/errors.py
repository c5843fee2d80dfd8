"""The service's errors, independent of any transport. Each carries a standard gRPC
status code (transports map it: gRPC as is, HTTP by `http_status`) and google.rpc
details that programs can read."""

from __future__ import annotations

import enum

from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from service.app import request_context

DOMAIN = "ludotheque"


class Code(enum.Enum):
    """A gRPC status code and its standard HTTP status."""

    INVALID_ARGUMENT = (3, 400)
    NOT_FOUND = (5, 404)
    ALREADY_EXISTS = (6, 409)
    PERMISSION_DENIED = (7, 403)
    RESOURCE_EXHAUSTED = (8, 429)
    FAILED_PRECONDITION = (9, 400)
    ABORTED = (10, 409)
    INTERNAL = (13, 500)
    UNAVAILABLE = (14, 503)
    UNAUTHENTICATED = (16, 401)

    @property
    def grpc_value(self) -> int:
        return self.value[0]

    @property
    def http_status(self) -> int:
        return self.value[1]


def code_name(value: int) -> str:
    """The name of a gRPC status code the service answers (OK for 0)."""
    return next((code.name for code in Code if code.grpc_value == value), "OK" if value == 0 else str(value))


class ServiceError(Exception):
    def __init__(self, code: Code, message: str, details: list[Message] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []


def details_of(error: ServiceError) -> list[Message]:
    """The error's details and, inside a request, a google.rpc.RequestInfo naming it:
    its request id, and `trace_id=<32 hex digits>` as serving_data when it is traced,
    so that a frontend's bug report carries what finds its logs and its trace."""
    record = request_context.current()
    if record is None or not record.request_id:
        return list(error.details)
    serving_data = f"trace_id={record.trace_id}" if record.trace_id else ""
    return [*error.details, error_details_pb2.RequestInfo(request_id=record.request_id, serving_data=serving_data)]


def status_of(error: ServiceError) -> status_pb2.Status:
    """The error as a google.rpc.Status, details packed: what every transport sends."""
    status = status_pb2.Status(code=error.code.grpc_value, message=error.message)
    for detail in details_of(error):
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    return status


def invalid_argument(field: str, description: str) -> ServiceError:
    violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=description)
    return ServiceError(
        Code.INVALID_ARGUMENT, description, [error_details_pb2.BadRequest(field_violations=[violation])]
    )


def rule_violation(rule: str, description: str) -> ServiceError:
    """An illegal move: the rule's stable code is the violation's subject and the
    ErrorInfo reason."""
    violation = error_details_pb2.PreconditionFailure.Violation(type="RULE", subject=rule, description=description)
    return ServiceError(
        Code.FAILED_PRECONDITION,
        description,
        [
            error_details_pb2.PreconditionFailure(violations=[violation]),
            error_details_pb2.ErrorInfo(reason=rule.upper(), domain=DOMAIN),
        ],
    )


def stale_version(expected: int, current: int) -> ServiceError:
    description = f"The game is at version {current}, not {expected}: read it again and retry."
    violation = error_details_pb2.PreconditionFailure.Violation(
        type="VERSION", subject="expected_version", description=description
    )
    return ServiceError(
        Code.ABORTED,
        description,
        [
            error_details_pb2.PreconditionFailure(violations=[violation]),
            error_details_pb2.ErrorInfo(
                reason="STALE_VERSION", domain=DOMAIN, metadata={"current_version": str(current)}
            ),
        ],
    )


def not_found(game_id: str) -> ServiceError:
    return ServiceError(Code.NOT_FOUND, f"There is no game {game_id!r}.")


def unauthenticated(description: str) -> ServiceError:
    return ServiceError(Code.UNAUTHENTICATED, description)


def permission_denied(description: str) -> ServiceError:
    return ServiceError(Code.PERMISSION_DENIED, description)


def unavailable(description: str) -> ServiceError:
    return ServiceError(Code.UNAVAILABLE, description)
