"""How the server logs (service/cli/log_setup.py): the two formats, the request's facts on
every line, the access log's sampling, and secrets scrubbed even when code logs one."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from service.app.observe import access_log, request_context
from service.app.observe.request_context import RequestFields
from service.cli.log_setup import AccessSampler, Redactor, chosen_format, configure_logging, store_password

SEAT_TOKEN = "1.lmqWCFp74va15iRu6UXFaq_TGsesE97IaEvD7tWxYXY"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    access = logging.getLogger(access_log.LOGGER_NAME)
    filters = list(access.filters)
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    access.filters[:] = filters


def test_auto_is_text_at_a_terminal_and_json_elsewhere() -> None:
    assert chosen_format("auto", Terminal()) == "text"
    assert chosen_format("auto", io.StringIO()) == "json"
    assert chosen_format("json", Terminal()) == "json"
    with pytest.raises(SystemExit, match="--log-format"):
        chosen_format("yaml", io.StringIO())


def test_secrets_and_what_looks_like_one_are_scrubbed() -> None:
    redact = Redactor(["the-signing-secret-0123", "admin-token-xyz", ""])
    line = (
        f"secret the-signing-secret-0123 admin admin-token-xyz seat {SEAT_TOKEN} "
        "header Authorization: Bearer abc.def url redis://:hunter2@redis:6379/0"
    )
    scrubbed = redact(line)
    for secret in ("the-signing-secret-0123", "admin-token-xyz", SEAT_TOKEN, "abc.def", "hunter2"):
        assert secret not in scrubbed
    assert scrubbed.count("<redacted>") == 5
    assert redact("game 7Ab3 version 12 command move-3 at 1.5ms") == "game 7Ab3 version 12 command move-3 at 1.5ms"
    mac = SEAT_TOKEN.partition(".")[2]
    for token in (f"1.2.{mac}", f"host.{mac}"):  # a seat's token of a later generation, a game's host token
        assert redact(f"token {token} seen") == "token <redacted> seen"
    assert store_password("redis://:hunter2@redis:6379/0") == "hunter2" and store_password("memory") == ""


@pytest.mark.usefixtures("restore_logging")
def test_a_json_line_carries_the_request_and_the_access_fields() -> None:
    out = io.StringIO()
    configure_logging("info", "json", secrets=["s3cret-s3cret"], stream=out)
    fields = RequestFields(request_id="r1", transport="grpc", method="GameService/SubmitCommand", game_id="g1")
    with request_context.begin(fields):
        request_context.note(kind="mooki", seat=0, command_id="c1", outcome="accepted")
        logging.getLogger("ludotheque.test").warning("deciding with s3cret-s3cret")
        access_log.write("OK", error=False, seconds=0.0015, bytes_out=12)
    logging.getLogger("ludotheque.test").info("outside any request")
    first, access, outside = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["message"] == "deciding with <redacted>" and first["level"] == "warning"
    assert first | {"request_id": "r1", "game_id": "g1", "kind": "mooki", "seat": 0, "outcome": "accepted"} == first
    assert access["logger"] == "ludotheque.access" and access["message"] == "grpc GameService/SubmitCommand OK 1.5ms"
    assert access["status"] == "OK" and access["duration_ms"] == 1.5 and access["bytes_out"] == 12
    assert access["command_id"] == "c1" and access["time"].endswith("Z")
    assert "request_id" not in outside


@pytest.mark.usefixtures("restore_logging")
def test_a_text_line_ends_with_the_facts_before_any_traceback() -> None:
    out = Terminal()
    configure_logging("info", "auto", stream=out)
    with request_context.begin(RequestFields(request_id="r2", game_id="g2")):
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("ludotheque.test").exception("failed")
    head, *traceback = out.getvalue().splitlines()
    assert head.endswith("ERROR ludotheque.test: failed request_id=r2 game_id=g2")
    assert traceback[-1] == "ValueError: boom"


def test_sampling_keeps_a_share_of_successes_and_every_error() -> None:
    draws = iter([0.05, 0.5, 0.95])
    sampler = AccessSampler(0.1, draw=lambda: next(draws))
    records = [logging.makeLogRecord({"error": error}) for error in (False, False, False, True)]
    assert [sampler.filter(record) for record in records] == [True, False, False, True]
    assert all(AccessSampler(1.0).filter(logging.makeLogRecord({"error": False})) for _ in range(10))
    with pytest.raises(SystemExit, match="between 0 and 1"):
        configure_logging("info", "json", access_sample=1.5, stream=io.StringIO())


def test_health_checks_and_scrapes_are_logged_at_debug_only() -> None:
    logger = logging.getLogger(access_log.LOGGER_NAME)
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    keep = Keep()
    logger.addHandler(keep)
    old_level = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        for method, error in (("grpc.health.v1.Health/Check", False), ("GET /metrics", True), ("GET /v1/games", False)):
            with request_context.begin(RequestFields(request_id="r", transport="t", method=method)):
                access_log.write("OK", error=error, seconds=0)
    finally:
        logger.removeHandler(keep)
        logger.setLevel(old_level)
    assert [record.levelno for record in seen] == [logging.DEBUG, logging.INFO, logging.INFO]
