"""The access log: one line per request (and per command of a Play session), on the
`ludotheque.access` logger, with the outcome, duration and sizes in structured fields.

Which lines are kept is the logging configuration's business (service/cli/log_setup.py
samples successful requests when asked; errors always pass): a line says whether it is
an error in its `error` field. The request's own facts (id, game, seat...) come from
service/app/observe/request_context.py, added to every line by the log handler."""

from __future__ import annotations

import logging
from typing import Any

from service.app.observe import request_context

LOGGER_NAME = "ludotheque.access"
log = logging.getLogger(LOGGER_NAME)

# Calls that machines make every few seconds (probes, scrapes): logged at debug only.
QUIET_METHODS = frozenset(
    {"grpc.health.v1.Health/Check", "grpc.health.v1.Health/Watch", "GET /metrics", "GET /healthz", "GET /readyz"}
)


def write(status: str, *, error: bool, seconds: float, **fields: Any) -> None:
    """Logs the current request's line: its transport and method (from the request
    context), `status` (a gRPC code name or an HTTP status), whether it failed on the
    server's or the caller's fault (`error`: always logged), its duration and `fields`
    (bytes_in, bytes_out...)."""
    record = request_context.current()
    transport, method = (record.transport, record.method) if record is not None else ("", "")
    level = logging.DEBUG if method in QUIET_METHODS and not error else logging.INFO
    if not log.isEnabledFor(level):
        return
    duration_ms = round(seconds * 1000, 3)
    log.log(
        level,
        "%s %s %s %.1fms",
        transport,
        method,
        status,
        duration_ms,
        extra={"access": {"status": status, "duration_ms": duration_ms, **fields}, "error": error},
    )
