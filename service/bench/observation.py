"""Micro-benchmark of what observing a move costs, in CPU per move: GameApp's moves (memory
store, no transport, as micro.app_figures drives them) each inside the request edge every
transport goes through (service/api/edge.py), with

- `off`: tracing off, the access log below its level (the benchmark's servers log warnings only);
- `sampled 0`: tracing on, sampling nothing (parentbased_traceidratio 0): the gRPC
  instrumentation's server span, the move's spans, all non-recording;
- `sampled 1`: tracing on, sampling everything: those spans recorded, batched and encoded
  as OTLP protobuf, then dropped (everything but the network);
- `access log`: tracing off, the access log's JSON line written for every call (to /dev/null).

Each mode runs in a fresh process: tracing is configured once per process."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace

MODES = ("off", "sampled 0", "sampled 1", "access log")
_TRACER = trace.get_tracer("ludotheque.bench")  # a proxy: the provider configured later


@dataclass(frozen=True, slots=True)
class ObservationFigures:
    kind: str
    us_per_move: dict[str, float]  # mode -> CPU µs per move (the calls it takes included)
    spans_per_move: float  # recorded, with sampling 1

    def extra_us(self, mode: str) -> float:
        return self.us_per_move[mode] - self.us_per_move["off"]


def observation_figures(kind: str, budget: float) -> ObservationFigures:
    figures: dict[str, float] = {}
    spans = 0.0
    for mode in MODES:
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as fresh:
            figures[mode], per_move = fresh.submit(measure, mode, kind, budget).result()
        if mode == "sampled 1":
            spans = per_move
    return ObservationFigures(kind, figures, spans)


class EncodingExporter:
    """A span exporter that does all an OTLP exporter does but send: encodes the batch."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
        from opentelemetry.sdk.trace.export import SpanExportResult

        encode_spans(spans).SerializeToString()
        self.spans += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def measure(mode: str, kind: str, budget: float) -> tuple[float, float]:
    """(CPU µs per move, spans recorded per move) in this process, for `mode`."""
    from service.bench import seam

    exporter = EncodingExporter()
    if mode.startswith("sampled"):
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        os.environ["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio"
        os.environ["OTEL_TRACES_SAMPLER_ARG"] = mode.split()[1]
        seam.configure_tracing(BatchSpanProcessor(exporter))  # type: ignore[arg-type]
    level = "info" if mode == "access log" else "warning"
    with open(os.devnull, "w") as sink:
        seam.log_to(level, sink)
        moves, seconds = asyncio.run(_moves(kind, budget))
        start = time.process_time()
        seam.shutdown_tracing()  # the last batches' encoding counts too
        seconds += time.process_time() - start
    return seconds / moves * 1e6, exporter.spans / moves


@contextmanager
def _rpc(method: str) -> Iterator[None]:
    """What every transport wraps a call in: the instrumentation's server span (when
    tracing is on) and the request edge."""
    from opentelemetry import trace

    from service.bench import seam

    with ExitStack() as stack:
        if seam.tracing_enabled():
            stack.enter_context(_TRACER.start_as_current_span(method, kind=trace.SpanKind.SERVER))
        call = stack.enter_context(seam.edge_call("grpc", method))
        yield
        call.ended("OK", error=False)


async def _moves(kind: str, budget: float, seed: int = 3) -> tuple[int, float]:
    from ludotheque.v1 import game_pb2
    from ludotheque.v1 import game_service_pb2 as api

    from service.bench import seam
    from service.bench.load import seats_for

    app = seam.in_process_app(metrics=True)
    rng = random.Random(seed)
    moves = 0
    elapsed = 0.0
    while elapsed < budget or moves == 0:
        created = await app.games.create_game(api.CreateGameRequest(kind=kind, seats=seats_for(kind)), "")
        game_id, tokens = created.game_id, created.seat_tokens
        start = time.process_time()
        seat = created.game.to_act[0]
        status = game_pb2.GAME_STATUS_ACTIVE
        while status == game_pb2.GAME_STATUS_ACTIVE:
            with _rpc("GetGame"):
                legal = (await app.games.get_game(api.GetGameRequest(game_id=game_id), tokens[seat])).legal_commands
            request = api.SubmitCommandRequest(game_id=game_id, command=rng.choice(legal), command_id=f"m{moves}")
            with _rpc("SubmitCommand"):
                response = await app.moves.submit(request, tokens[seat])
                response.SerializeToString()
            moves += 1
            status = response.status
            seat = response.to_act[0] if response.to_act else seat
        elapsed += time.process_time() - start
    return moves, elapsed
