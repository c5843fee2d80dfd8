"""The service's errors, independent of any transport. Each carries a standard gRPC
status code (transports map it: gRPC as is, HTTP by `http_status`) and google.rpc
details that programs can read."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence

from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

DOMAIN = "ludotheque"


class Code(enum.Enum):
    """A gRPC status code and its standard HTTP status."""

    INVALID_ARGUMENT = (3, 400)
    DEADLINE_EXCEEDED = (4, 504)
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


class ServiceError(Exception):
    def __init__(self, code: Code, message: str, details: list[Message] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []


def status_of(error: ServiceError) -> status_pb2.Status:
    """The error as a google.rpc.Status, details packed: what every transport sends."""
    status = status_pb2.Status(code=error.code.grpc_value, message=error.message)
    for detail in error.details:
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


def resource_exhausted(reason: str, subject: str, description: str, retry_after_ms: int) -> ServiceError:
    """A limit reached: which one (QuotaFailure, ErrorInfo `reason`) and when to try
    again (RetryInfo; HTTP answers say it in Retry-After too)."""
    delay = duration_pb2.Duration()
    delay.FromMilliseconds(max(retry_after_ms, 0))
    violation = error_details_pb2.QuotaFailure.Violation(subject=subject, description=description)
    return ServiceError(
        Code.RESOURCE_EXHAUSTED,
        description,
        [
            error_details_pb2.QuotaFailure(violations=[violation]),
            error_details_pb2.RetryInfo(retry_delay=delay),
            error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN),
        ],
    )


def retry_after_seconds(details: Sequence[Message]) -> int | None:
    """The whole seconds of the RetryInfo among an error's details, rounded up (what
    an HTTP answer says in Retry-After)."""
    for detail in details:
        if isinstance(detail, error_details_pb2.RetryInfo):
            milliseconds: int = detail.retry_delay.ToMilliseconds()
            return max(math.ceil(milliseconds / 1000), 1)
    return None
