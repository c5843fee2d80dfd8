"""Tracing with OpenTelemetry, configured by the standard OTEL_* variables, off unless
OTEL_TRACES_EXPORTER names an exporter (`otlp`, or `console` to stderr).

When on: the SDK's tracer provider (resource from OTEL_SERVICE_NAME and
OTEL_RESOURCE_ATTRIBUTES, service name `ludotheque` by default; sampler from
OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG; the OTLP exporter from
OTEL_EXPORTER_OTLP_*, over gRPC), the maintained instrumentations — gRPC (a span per
RPC, `traceparent` read from the metadata; health checks left out), aiohttp's server (a
span per HTTP request; probes and scrapes left out), Redis (a span per round trip) —
and the use cases' own spans (service/app/observe/tracing.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.util.types import Attributes

from service.app.observe import tracing

EXPORTERS = ("otlp", "console")
# HTTP paths that machines call every few seconds: no span (a regex list, as the
# instrumentation reads it); the operator's own OTEL_PYTHON_AIOHTTP_SERVER_EXCLUDED_URLS wins.
QUIET_PATHS = "/healthz,/readyz,/metrics"

_provider: TracerProvider | None = None


class ServerRooted(Sampler):
    """The configured sampler, for spans inside a request; a span with no parent that
    does not start a request is dropped. Background work (the live reader's blocking
    Redis reads, the readiness ping every 2 s, the index reconciler) would otherwise
    make a one-span trace of every Redis round trip it makes."""

    def __init__(self, inner: Sampler) -> None:
        self.inner = inner

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: Any = None,
    ) -> SamplingResult:
        parent = trace.get_current_span(parent_context).get_span_context()
        if not parent.is_valid and kind is not SpanKind.SERVER:
            return SamplingResult(Decision.DROP)
        return self.inner.should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)

    def get_description(self) -> str:
        return f"ServerRooted{{{self.inner.get_description()}}}"


def exporters_asked(environ: Mapping[str, str]) -> list[str]:
    """The exporters OTEL_TRACES_EXPORTER names; none when unset, `none`, or the SDK
    is disabled (OTEL_SDK_DISABLED=true)."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    names = [name.strip() for name in environ.get("OTEL_TRACES_EXPORTER", "none").split(",")]
    names = [name for name in names if name and name != "none"]
    unknown = [name for name in names if name not in EXPORTERS]
    if unknown:
        raise SystemExit(f"OTEL_TRACES_EXPORTER: {', '.join(unknown)} is not one of {', '.join(EXPORTERS)} or none")
    protocol = environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"))
    if "otlp" in names and protocol != "grpc":
        raise SystemExit(f"OTEL_EXPORTER_OTLP_PROTOCOL: this server exports OTLP over grpc only, not {protocol!r}")
    return names


def configure(environ: MutableMapping[str, str] = os.environ, processor: SpanProcessor | None = None) -> bool:
    """Turns tracing on when OTEL_TRACES_EXPORTER asks for it (or a test brings its own
    span `processor`); whether it is on. Once per process."""
    global _provider
    if _provider is not None:
        return True
    names = exporters_asked(environ)
    if not names and processor is None:
        return False
    # Imported only when tracing is on: the SDK's exporters cost start-up time otherwise.
    from opentelemetry.instrumentation.aiohttp_server import AioHttpServerInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "ludotheque"}))
    provider = TracerProvider(resource=resource)
    provider.sampler = ServerRooted(provider.sampler)  # the one OTEL_TRACES_SAMPLER chose
    for name in names:
        provider.add_span_processor(BatchSpanProcessor(_exporter(name)))
    if processor is not None:
        provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    environ.setdefault("OTEL_PYTHON_AIOHTTP_SERVER_EXCLUDED_URLS", QUIET_PATHS)
    AioHttpServerInstrumentor().instrument(tracer_provider=provider)
    RedisInstrumentor().instrument(tracer_provider=provider)
    tracing.enable()
    _provider = provider
    return True


def _exporter(name: str) -> Any:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter(out=sys.stderr)  # stdout carries the ready line
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()  # OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _INSECURE...


def grpc_interceptors() -> list[Any]:
    """The gRPC instrumentation's server interceptor, when tracing is on."""
    if _provider is None:
        return []
    from opentelemetry.instrumentation.grpc import aio_server_interceptor, filters

    health = filters.negate(filters.health_check())
    return [aio_server_interceptor(tracer_provider=_provider, filter_=health)]  # type: ignore[no-untyped-call]


def shutdown() -> None:
    """Sends the spans still waiting in the batch processors (at the server's stop)."""
    if _provider is not None:
        _provider.shutdown()
