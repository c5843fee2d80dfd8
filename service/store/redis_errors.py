"""Every failure met while talking to Redis, as StoreUnavailable (UNAVAILABLE for
clients: retryable) with a reason for the metrics, and the log lines operators read.

Whatever the Redis client raises counts: besides its own errors, redis-py raises an
AttributeError or a TypeError from its own code when a connection is closed under a
command (its cluster client closes every connection of a node it gives up on, those in
use too: redis-py issues #3546, #4287). redis_client.GuardedConnection turns those into
ConnectionErrors where it can; any that still come out of redis-py's or asyncio's code
about something gone (`'NoneType' object ...`) count as a connection failure too. None
of it is the caller's fault, and a retry on a healthy topology succeeds, so none of it
may become INTERNAL. Log lines are rate-limited per reason: a failover produces a burst
of identical errors, and one line (with how many were folded into it) says it all."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from types import TracebackType

import redis
from redis.exceptions import (
    AskError,
    AuthenticationError,
    BusyLoadingError,
    ClusterDownError,
    ConnectionError,
    MaxConnectionsError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.base import StoreUnavailable

log = logging.getLogger("service.store.redis")

LOG_EVERY = 5.0  # seconds: at most one line per reason in this time

# Where a connection torn down under a command fails: redis-py's code, or asyncio's streams.
_CLIENT_CODE = (os.path.dirname(redis.__file__) + os.sep, os.path.dirname(asyncio.__file__) + os.sep)

# Reasons that a failover (or a node going away) explains.
FAILOVER_REASONS = frozenset({"connection", "timeout", "cluster_down", "moved", "readonly", "loading", "replicas"})


def reason_of(error: BaseException) -> str:
    """What kind of failure `error` is, as the metrics label it."""
    if isinstance(error, RedisTimeoutError | TimeoutError):  # redis-py's, or asyncio's
        return "timeout"
    if isinstance(error, AuthenticationError):
        return "refused"
    if isinstance(error, BusyLoadingError):
        return "loading"
    if isinstance(error, MaxConnectionsError):
        return "pool_exhausted"
    if isinstance(error, ConnectionError | OSError):
        return "connection"
    if isinstance(error, ClusterDownError | TryAgainError | SlotNotCoveredError):
        return "cluster_down"
    if isinstance(error, AskError):  # MOVED too
        return "moved"
    if isinstance(error, ReadOnlyError) or (isinstance(error, ResponseError) and "replica" in str(error).lower()):
        return "readonly"  # a write that reached a replica: a failover just happened
    if isinstance(error, OutOfMemoryError):
        return "out_of_memory"
    if isinstance(error, ResponseError):
        return "refused"
    if isinstance(error, RedisError | RedisClusterException):
        return "redis"
    if closed_under_a_command(error):
        return "connection"
    return "client_bug"


def closed_under_a_command(error: BaseException) -> bool:
    """Whether `error` is the client's code finding its connection gone mid-command: an
    AttributeError or TypeError about None, raised inside redis-py or asyncio."""
    if not isinstance(error, AttributeError | TypeError) or "NoneType" not in str(error):
        return False
    trace = error.__traceback__
    if trace is None:
        return False
    while trace.tb_next is not None:
        trace = trace.tb_next
    return trace.tb_frame.f_code.co_filename.startswith(_CLIENT_CODE)


class _Throttle:
    """Remembers when each reason was last logged, and how many were not."""

    def __init__(self) -> None:
        self._last: dict[str, float] = {}
        self._folded: dict[str, int] = {}

    def due(self, reason: str) -> int | None:
        """None: stay silent; else how many lines were folded since the last one."""
        now = time.monotonic()
        if now - self._last.get(reason, -LOG_EVERY) < LOG_EVERY:
            self._folded[reason] = self._folded.get(reason, 0) + 1
            return None
        self._last[reason] = now
        return self._folded.pop(reason, 0)


_throttle = _Throttle()


def report(error: StoreUnavailable, cause: BaseException | None = None) -> None:
    """One log line for this kind of failure now and then."""
    folded = _throttle.due(error.reason)
    if folded is None:
        return
    more = f" (and {folded} more like it)" if folded else ""
    if error.reason == "client_bug":
        log.error("the Redis client failed unexpectedly: %s%s", error, more, exc_info=cause)
    elif error.reason in FAILOVER_REASONS:
        log.warning("Redis failure, possibly a failover (%s): %s%s", error.reason, error, more)
    else:
        log.error("Redis refused a command (%s): %s%s", error.reason, error, more)


def unavailable(error: BaseException, shard: str = "") -> StoreUnavailable:
    """`error` as StoreUnavailable (of `shard`, when known), logged (rate-limited)."""
    if isinstance(error, StoreUnavailable):
        return error
    found = StoreUnavailable(f"Redis: {type(error).__name__}: {error}", reason_of(error), shard)
    report(found, error)
    return found


class _UnavailableOnRedisErrors:
    """The context of unavailable_on_redis_errors: a class, not a generator, since it
    wraps every round trip (a generator's context manager costs several µs each).
    `shard`: names the shard a failure happened on (called only then)."""

    __slots__ = ("_shard",)

    def __init__(self, shard: Callable[[], str] | None = None) -> None:
        self._shard = shard

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if not isinstance(error, Exception):
            return  # no failure, or a cancellation: passes through
        shard = self._shard() if self._shard is not None else ""
        if isinstance(error, StoreUnavailable):
            if shard and not error.shard:
                error.shard = shard
            report(error)
            return
        raise unavailable(error, shard) from error


_UNAVAILABLE_ON_REDIS_ERRORS = _UnavailableOnRedisErrors()


def unavailable_on_redis_errors(shard: Callable[[], str] | None = None) -> _UnavailableOnRedisErrors:
    """Any failure while talking to Redis becomes StoreUnavailable (naming the shard
    `shard` names, if given). Cancellation is not a failure (it is a BaseException,
    not an Exception) and passes through."""
    return _UNAVAILABLE_ON_REDIS_ERRORS if shard is None else _UnavailableOnRedisErrors(shard)
