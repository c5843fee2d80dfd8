"""The gRPC handlers' error mapping, unary, server-streaming and bidirectional alike:
a ServiceError ends the call with its own status, any other exception with INTERNAL
(logged), and a cancellation is not turned into a status."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ludotheque.v1 import game_service_pb2 as api

from service.api.grpc_server import _bidi, _streaming, _unary
from service.api.rpcs import SERVICE, Responses
from service.app.model.errors import not_found
from tests.support.aio import async_test

GET_GAME = SERVICE.methods_by_name["GetGame"]
STREAM_EVENTS = SERVICE.methods_by_name["StreamEvents"]
PLAY = SERVICE.methods_by_name["Play"]
REQUEST = api.GetGameRequest(game_id="g").SerializeToString()


class Aborted(Exception):
    """What the fake context's abort() raises, as grpc's does."""

    def __init__(self, code: Any, details: str) -> None:
        super().__init__(details)
        self.code = code


class FakeContext:
    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    def peer(self) -> str:
        return "ipv4:127.0.0.1:50000"

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    async def abort(self, code: Any, details: str, trailing_metadata: Any = ()) -> None:
        raise Aborted(code, details)


def failing(error: BaseException) -> Any:
    async def unary(request: Any, token: str) -> Any:
        raise error

    async def streaming(request: Any, token: str) -> Responses:
        async def stream() -> AsyncIterator[Any]:
            yield api.StreamEventsResponse()
            raise error

        return Responses(stream())

    async def bidi(requests: AsyncIterator[Any], token: str) -> AsyncIterator[Any]:
        yield api.PlayResponse()
        raise error

    return unary, streaming, bidi


async def outcome(error: BaseException) -> list[Any]:
    """What each kind of handler ends with when its use case raises `error`."""
    unary, streaming, bidi = failing(error)
    endings: list[Any] = []
    with pytest.raises(Aborted) as ended:
        await _unary(GET_GAME, unary)(REQUEST, FakeContext())
    endings.append(ended.value.code)
    with pytest.raises(Aborted) as ended:
        async for _ in _streaming(STREAM_EVENTS, streaming)(b"", FakeContext()):
            pass
    endings.append(ended.value.code)

    async def requests() -> AsyncIterator[bytes]:
        yield b""

    with pytest.raises(Aborted) as ended:
        async for _ in _bidi(PLAY, bidi)(requests(), FakeContext()):
            pass
    endings.append(ended.value.code)
    return endings


@async_test
async def test_a_service_error_ends_the_call_with_its_own_status() -> None:
    codes = await outcome(not_found("g"))
    assert [code.name for code in codes] == ["NOT_FOUND"] * 3


@async_test
async def test_an_unexpected_error_is_internal_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="service.api.grpc_server"):
        codes = await outcome(RuntimeError("boom"))
    assert [code.name for code in codes] == ["INTERNAL"] * 3
    logged = [record for record in caplog.records if record.name == "service.api.grpc_server"]
    assert len(logged) == 3 and all(record.exc_info and "boom" in str(record.exc_info[1]) for record in logged)


@async_test
async def test_a_cancellation_is_not_turned_into_a_status() -> None:
    unary, _, _ = failing(asyncio.CancelledError())
    with pytest.raises(asyncio.CancelledError):
        await _unary(GET_GAME, unary)(REQUEST, FakeContext())
