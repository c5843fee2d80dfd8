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

from service.app.observe import request_context
from service.app.words.catalogs import catalogs

DOMAIN = "ludotheque"
MESSAGE_KEY = "message_key"  # the ErrorInfo metadata entry naming the error's message in seeds/locales/


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
    OUT_OF_RANGE = (11, 400)
    INTERNAL = (13, 500)
    UNAVAILABLE = (14, 503)
    DATA_LOSS = (15, 500)
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


def readable(text: str) -> str:
    """`text` as UTF-8 can carry it: a lone surrogate (a JSON "\\ud800", or a byte that
    was not UTF-8 in a header, which aiohttp decodes as one) written as its escape.
    Protobuf refuses to hold such a string, so an error quoting what a client sent
    would fail to be built, and the client get a 500 instead of its 400."""
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")


class ServiceError(Exception):
    """An answer that is not a success. `message` is for developers (English, with
    the particulars); `key` names the catalogs' message for people (seeds/locales/),
    which every error carries in its details in the caller's `locale`."""

    def __init__(self, code: Code, message: str, details: list[Message] | None = None, *, key: str = "") -> None:
        message = readable(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []
        self.key = key or f"error.{code.name.lower()}"
        self.locale = ""  # the caller's, once known (service/api/rpcs.py sets it)


def details_of(error: ServiceError) -> list[Message]:
    """The error's google.rpc details, with its message key (ErrorInfo metadata
    "message_key", added to the error's own ErrorInfo, or in an ErrorInfo whose reason
    is the status code's name when the error has none), the message in the caller's language (LocalizedMessage) and,
    inside a request, a RequestInfo naming it: its request id, and `trace_id=<32 hex
    digits>` as serving_data when it is traced, so that a frontend's bug report carries
    what finds its logs and its trace."""
    details: list[Message] = []
    informed = False
    for detail in error.details:
        if isinstance(detail, error_details_pb2.ErrorInfo):
            informed = True
            if MESSAGE_KEY not in detail.metadata:  # a reason of its own, and the key besides
                keyed = error_details_pb2.ErrorInfo()
                keyed.CopyFrom(detail)
                keyed.metadata[MESSAGE_KEY] = error.key
                detail = keyed
        details.append(detail)
    if not informed:
        details.append(
            error_details_pb2.ErrorInfo(reason=error.code.name, domain=DOMAIN, metadata={MESSAGE_KEY: error.key})
        )
    words = catalogs().words(error.locale)
    details.append(error_details_pb2.LocalizedMessage(locale=words.locale, message=words.template(error.key)))
    record = request_context.current()
    if record is not None and record.request_id:
        serving_data = f"trace_id={record.trace_id}" if record.trace_id else ""
        details.append(error_details_pb2.RequestInfo(request_id=record.request_id, serving_data=serving_data))
    return details


def status_of(error: ServiceError) -> status_pb2.Status:
    """The error as a google.rpc.Status, details packed: what every transport sends."""
    status = status_pb2.Status(code=error.code.grpc_value, message=error.message)
    for detail in details_of(error):
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    return status


def invalid_argument(field: str, description: str) -> ServiceError:
    field, description = readable(field), readable(description)
    violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=description)
    return ServiceError(
        Code.INVALID_ARGUMENT, description, [error_details_pb2.BadRequest(field_violations=[violation])]
    )


def rule_violation(kind: str, rule: str, description: str) -> ServiceError:
    """An illegal move: the rule's stable code is the violation's subject and the
    ErrorInfo reason; its message key is "<kind>.rule.<code>" (docs/RULE_CODES.md)."""
    violation = error_details_pb2.PreconditionFailure.Violation(type="RULE", subject=rule, description=description)
    rule, description = readable(rule), readable(description)
    key = f"{kind}.rule.{rule}"
    return ServiceError(
        Code.FAILED_PRECONDITION,
        description,
        [
            error_details_pb2.PreconditionFailure(violations=[violation]),
            error_details_pb2.ErrorInfo(reason=rule.upper(), domain=DOMAIN, metadata={MESSAGE_KEY: key}),
        ],
        key=key,
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
                reason="STALE_VERSION",
                domain=DOMAIN,
                metadata={"current_version": str(current), MESSAGE_KEY: "error.stale_version"},
            ),
        ],
        key="error.stale_version",
    )


def versions_lost(first: int, last: int, current: int, field: str = "expected_version") -> ServiceError:
    """Versions the caller was given that the event store no longer holds (a Redis
    failover lost them): nothing it knew of them holds."""
    span = f"version {first}" if first == last else f"versions {first} to {last}"
    description = (
        f"The event store lost {span} of this game (a storage failover): what you were told of them no longer "
        f"holds. The game is at version {current}: read it again."
    )
    violation = error_details_pb2.PreconditionFailure.Violation(type="VERSION", subject=field, description=description)
    return ServiceError(
        Code.FAILED_PRECONDITION,
        description,
        [
            error_details_pb2.PreconditionFailure(violations=[violation]),
            error_details_pb2.ErrorInfo(
                reason="VERSIONS_LOST",
                domain=DOMAIN,
                metadata={
                    "first_lost": str(first),
                    "last_lost": str(last),
                    "current_version": str(current),
                    MESSAGE_KEY: "error.versions_lost",
                },
            ),
        ],
        key="error.versions_lost",
    )


def not_found(game_id: str) -> ServiceError:
    return ServiceError(Code.NOT_FOUND, f"There is no game {game_id!r}.")


def game_lost(game_id: str) -> ServiceError:
    """A game the store had and lost (a failover to a replica that never received it)."""
    game_id = readable(game_id)
    return ServiceError(
        Code.DATA_LOSS,
        f"Game {game_id!r} was created, but the event store lost it in a storage failure: "
        "it cannot be read or played any more.",
        [error_details_pb2.ErrorInfo(reason="GAME_LOST", domain=DOMAIN, metadata={"game_id": game_id})],
    )


def unauthenticated(description: str) -> ServiceError:
    return ServiceError(Code.UNAUTHENTICATED, description)


def permission_denied(description: str) -> ServiceError:
    return ServiceError(Code.PERMISSION_DENIED, description)


def unavailable(description: str) -> ServiceError:
    return ServiceError(Code.UNAVAILABLE, description)


def resource_exhausted(reason: str, subject: str, description: str, retry_after_ms: int) -> ServiceError:
    """A limit reached: which one (QuotaFailure, ErrorInfo `reason`) and when to try
    again (RetryInfo; HTTP answers say it in Retry-After too)."""
    subject, description = readable(subject), readable(description)
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
