"""How the server logs: to stderr, as JSON lines (one object per line: what log collectors
read, the default when stderr is not a terminal) or as text for a person at a terminal;
every line with the facts of its request (service/app/observe/request_context.py), the access
log sampled when asked (errors always kept), and secrets scrubbed from every line."""

from __future__ import annotations

import json
import logging
import random
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO
from urllib.parse import urlsplit

from service.app.observe import access_log, request_context
from service.settings import setting

FORMATS = ("auto", "json", "text")
REDACTED = "<redacted>"
# The request's facts a caller chooses freely (game ids are letters and digits only).
CALLER_FIELDS = frozenset({"request_id", "command_id"})
# What a secret looks like even when nobody told us its value: a seat token (seat, dot,
# its generation and a dot if any, a base64url HMAC-SHA256), a game's host token ("host",
# dot, an HMAC), a bearer header, a password in a URL.
SEAT_TOKEN = re.compile(r"(?<![A-Za-z0-9_-])(?:\d{1,3}|host)\.(?:\d{1,9}\.)?[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")
BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;]+")
URL_PASSWORD = re.compile(r"(://[^:/@\s\"']*:)[^@\s\"']+@")


class Redactor:
    """Scrubs the given secrets, and anything shaped like one, from text."""

    def __init__(self, secrets: Iterable[str]) -> None:
        # Longest first, so that a secret containing another is replaced whole.
        self.secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        """The known secrets and the shapes of one (free text: messages, tracebacks)."""
        text = self.known(text)
        # Each pattern only where it could match: most text holds none, and a regex
        # scan costs more than these checks (every access log line passes here).
        if len(text) >= 45 and "." in text:
            text = SEAT_TOKEN.sub(REDACTED, text)
        if "@" in text:
            text = URL_PASSWORD.sub(rf"\g<1>{REDACTED}@", text)
        if "earer" in text.lower():
            text = BEARER.sub(rf"\g<1>{REDACTED}", text)
        return text

    def known(self, text: str) -> str:
        """The known secrets only: cheap enough for a whole line."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text


class RequestFacts(logging.Filter):
    """Puts the current request's facts on each record, while the record is made in
    the request's own context (handlers run synchronously, in the caller's)."""

    def filter(self, record: logging.LogRecord) -> bool:
        current = request_context.current()
        record.request = current.as_log_fields() if current is not None else {}
        return True


class AccessSampler(logging.Filter):
    """Keeps a share of the access log's successful requests; errors always."""

    def __init__(self, ratio: float, draw: Any = random.random) -> None:
        super().__init__()
        self.ratio = ratio
        self.draw = draw

    def filter(self, record: logging.LogRecord) -> bool:
        return bool(getattr(record, "error", True)) or self.ratio >= 1 or self.draw() < self.ratio


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the request's facts, the
    access log's fields, the exception if any. The shapes of a secret are looked for in
    what may hold any text (the message, a traceback, the ids a caller chose); the known
    secrets in the whole line."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        request = getattr(record, "request", {})
        for chosen_by_the_caller in CALLER_FIELDS & request.keys():
            request[chosen_by_the_caller] = self.redact(request[chosen_by_the_caller])
        line: dict[str, Any] = {
            "time": _utc(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": self.redact(record.getMessage()),
            **request,
            **getattr(record, "access", {}),
        }
        if record.exc_info:
            line["exception"] = self.redact(self.formatException(record.exc_info))
        return self.redact.known(json.dumps(line, ensure_ascii=False, default=str))


class TextFormatter(logging.Formatter):
    """The classic line, then the request's facts as key=value."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        facts = {**getattr(record, "request", {}), **getattr(record, "access", {})}
        facts.pop("status", None)
        facts.pop("duration_ms", None)  # both are in the access log's message already
        if facts:
            head, newline, rest = text.partition("\n")  # after the message, before a traceback
            text = head + " " + " ".join(f"{key}={value}" for key, value in facts.items()) + newline + rest
        return self.redact(text)


def _utc(created: float) -> str:
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def chosen_format(name: str, stream: TextIO) -> str:
    if name not in FORMATS:
        raise SystemExit(f"--log-format must be one of {', '.join(FORMATS)}, not {name!r}")
    if name == "auto":
        return "text" if stream.isatty() else "json"
    return name


def store_password(url: str) -> str:
    try:
        return urlsplit(url).password or ""
    except ValueError:
        return ""


@dataclass(frozen=True, slots=True)
class LogSettings:
    """How a server logs, as it is configured (checked by `configure_logging`)."""

    log_level: str = setting("info", "debug, info, warning or error")
    log_format: str = setting(
        "auto",
        "json (one JSON object per line, for log collectors), text (for people), or auto: text when stderr is "
        "a terminal, else json",
    )
    access_log_sample: float = setting(
        1.0,
        "share of successful requests written to the access log, from 0 to 1 (errors are always written)",
    )


def configure_logging(
    level: str,
    log_format: str = "auto",
    *,
    access_sample: float = 1.0,
    secrets: Iterable[str] = (),
    stream: TextIO | None = None,
) -> None:
    """The root logger writes to `stream` (stderr) in the chosen format; the access
    log keeps `access_sample` of its successful requests."""
    if not 0 <= access_sample <= 1:
        raise SystemExit(f"--access-log-sample must be between 0 and 1, not {access_sample}")
    stream = stream or sys.stderr
    redact = Redactor(secrets)
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestFacts())
    formatter = JsonFormatter(redact) if chosen_format(log_format, stream) == "json" else TextFormatter(redact)
    handler.setFormatter(formatter)
    # Where each call was made from is never printed: not looking it up saves a stack
    # walk per line (the logging documentation's own advice, "Optimization").
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    access = logging.getLogger(access_log.LOGGER_NAME)
    for old_filter in list(access.filters):
        access.removeFilter(old_filter)
    access.addFilter(AccessSampler(access_sample))
