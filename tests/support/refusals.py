"""Expecting refusals: an engine's (a RuleViolation, by its code) and a use case's (a
ServiceError, by its code and the reason of its details), and reading their details."""

from __future__ import annotations

import random
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from google.protobuf.message import Message

from engines.contract import Engine, RuleViolation
from service.app.model.errors import Code, ServiceError

S = TypeVar("S")
C = TypeVar("C", bound=Message)
D = TypeVar("D", bound=Message)


def refused(engine: Engine[S, C, Any, Any, Any], state: S, seat: int, command: C) -> str:
    """The code of the RuleViolation `engine` refuses `command` from `seat` with (it
    must say why: a message too)."""
    with pytest.raises(RuleViolation) as raised:
        engine.decide(state, seat, command, random.Random(0))
    assert raised.value.message
    return raised.value.code


async def expect_error(code: Code, call: Awaitable[Any], reason: str | None = None) -> ServiceError:
    """The ServiceError `call` fails with: of `code`, with a message, and when `reason`
    is given, with a detail of that reason (an ErrorInfo's)."""
    with pytest.raises(ServiceError) as raised:
        await call
    assert raised.value.code is code, raised.value.message
    assert raised.value.message
    if reason is not None:
        assert any(getattr(d, "reason", None) == reason for d in raised.value.details), raised.value.details
    return raised.value


def detail(error: ServiceError, kind: type[D]) -> D:
    """The error's detail of `kind` (an ErrorInfo, a QuotaFailure...): it must have one."""
    found = [d for d in error.details if isinstance(d, kind)]
    assert found, f"no {kind.__name__} in {error.details}"
    return found[0]
