"""`python -m tests.support.traced_server serve`: the real server, its spans collected by
OpenTelemetry's InMemorySpanExporter in its own process, then written as JSON lines to
$LUDOTHEQUE_TEST_SPANS when it stops (SIGTERM), for the test that started it to read.

It is `ludotheque serve` with one difference: the span processor is the test's, not the
exporter OTEL_TRACES_EXPORTER would name (tests/support/server.py starts it)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import format_span_id, format_trace_id

from service.cli import build_parser, telemetry
from service.cli import config as configuration
from service.cli.serve import configure_logging, serve

SPANS_ENV = "LUDOTHEQUE_TEST_SPANS"


def as_json(span: ReadableSpan) -> dict[str, object]:
    context = span.get_span_context()
    assert context is not None
    return {
        "name": span.name,
        "kind": span.kind.name,
        "trace_id": format_trace_id(context.trace_id),
        "span_id": format_span_id(context.span_id),
        "parent_id": format_span_id(span.parent.span_id) if span.parent is not None else None,
        "attributes": dict(span.attributes or {}),
        "status": span.status.status_code.name,
        "links": [format_span_id(link.context.span_id) for link in span.links],
        "resource": dict(span.resource.attributes),
    }


def main() -> int:
    exporter = InMemorySpanExporter()
    telemetry.configure(processor=SimpleSpanProcessor(exporter))
    config = configuration.from_arguments(build_parser().parse_args(sys.argv[1:]))
    configure_logging(config)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(config))
    lines = [json.dumps(as_json(span)) for span in exporter.get_finished_spans()]
    Path(os.environ[SPANS_ENV]).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
