"""How large a request may be, per RPC, on every transport: a request is sized to its
message. A move, a creation, a read are a few hundred bytes: SMALL_MESSAGE_BYTES
(16 KiB) is ample, and a megabyte sent to them is refused before it is parsed. Only the
RPCs that carry a whole game's log (ImportGame, ReplayLog) take up to
--max-message-bytes. What is refused is told RESOURCE_EXHAUSTED (HTTP 413), naming the
limit, and an HTTP connection is closed rather than the rest of its body read.

Parsing a request costs the event loop about 0.07 s a megabyte of JSON: a body over
PARSE_ON_LOOP_BYTES is parsed in a worker thread, so that a large import does not hold
up every other player's move meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from google.rpc import error_details_pb2

from service.app.model.errors import DOMAIN, Code, ServiceError

SMALL_MESSAGE_BYTES = 16 * 1024
LARGE_MESSAGES = frozenset({"ImportGame", "ReplayLog"})  # a game's whole log
PARSE_ON_LOOP_BYTES = 64 * 1024
# How many times its compressed size a body may inflate to (JSON of a game's log
# compresses 10 to 30 times); past it, a compression bomb. Checked once the body has
# inflated past INFLATION_FLOOR, so that a small body of repeated bytes goes through.
MAX_INFLATION = 100
INFLATION_FLOOR = 64 * 1024
REASON = "REQUEST_TOO_LARGE"

T = TypeVar("T")


def message_limit(method: str, max_message_bytes: int) -> int:
    """The most bytes a request of RPC `method` may have."""
    return max_message_bytes if method in LARGE_MESSAGES else min(SMALL_MESSAGE_BYTES, max_message_bytes)


def too_large(limit: int, method: str) -> ServiceError:
    """A request over its RPC's limit: RESOURCE_EXHAUSTED, which says the limit."""
    which = "a game's log" if method in LARGE_MESSAGES else "a request other than a game's log"
    description = f"The request is larger than {limit:,} bytes, the most {method} takes ({which})."
    return _refusal(description, limit)


def inflated(ratio: int) -> ServiceError:
    """A compressed body that inflates past MAX_INFLATION times its size."""
    description = (
        f"The request body inflates to more than {ratio} times its compressed size: refused as a compression bomb."
    )
    return _refusal(description, 0)


def _refusal(description: str, limit: int) -> ServiceError:
    violation = error_details_pb2.QuotaFailure.Violation(subject="request", description=description)
    metadata = {"limit_bytes": str(limit)} if limit else {"max_inflation": str(MAX_INFLATION)}
    return ServiceError(
        Code.RESOURCE_EXHAUSTED,
        description,
        [
            error_details_pb2.QuotaFailure(violations=[violation]),
            error_details_pb2.ErrorInfo(reason=REASON, domain=DOMAIN, metadata=metadata),
        ],
    )


async def parse_off_loop(size: int, parse: Callable[[], T]) -> T:
    """`parse()`'s result: on the event loop for a small request, in a worker thread for
    one over PARSE_ON_LOOP_BYTES."""
    if size <= PARSE_ON_LOOP_BYTES:
        return parse()
    return await asyncio.to_thread(parse)
