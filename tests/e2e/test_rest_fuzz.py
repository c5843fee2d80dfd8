"""Fuzzing the REST API with schemathesis, from the OpenAPI document the server serves.

Every operation gets generated requests, valid and invalid; half of those naming a
game name one that exists (an active game, or a finished one for the event stream).
No answer may be a server error, every answer must match the document, invalid data
must be refused, and a refused request must not change any game."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from ludotheque import Client
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import negative_data_rejection

from service.api.http_server import OPENAPI_PATH
from tests.support.rest import Rest
from tests.support.server import ServerProcess, watched_server

# ImportGame's body is a whole game log: the coverage phase would try thousands of
# boundary cases of its nested messages (a minute and more); fuzzing still covers it.
CONFIG = SchemathesisConfig.from_dict(
    {"operations": [{"include-operation-id": "ImportGame", "phases": {"coverage": {"enabled": False}}}]}
)
schema = schemathesis.openapi.from_path(str(OPENAPI_PATH), config=CONFIG)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


class Targets:
    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        with Client(server.target) as client:
            active = client.create_game("mooki", ["Cléo", "Robin"])
            cleo = client.with_token(active.seat_tokens[0])
            cleo.submit(active.game_id, cleo.get_game(active.game_id).legal_commands[0])
            self.active = active.game_id
            bots = [{"name": "A", "bot": "random"}, {"name": "B", "bot": "greedy"}]
            self.finished = client.create_game("mooki", bots).game_id

    def versions(self) -> dict[str, int]:
        rest = Rest(self.server.http)
        games = (self.active, self.finished)
        return {game_id: int(rest.get(f"/v1/games/{game_id}").json["version"]) for game_id in games}


@pytest.fixture(scope="module")
def targets() -> Iterator[Targets]:
    with watched_server() as server:
        yield Targets(server)


@schema.parametrize()
@settings(
    max_examples=max(settings().max_examples // 4, 25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_no_server_error_and_nothing_changed_by_a_rejected_request(
    case: schemathesis.Case[Any], targets: Targets
) -> None:
    parameters = case.path_parameters or {}
    if "game_id" in parameters and len(str(parameters["game_id"])) % 2 == 0:
        streaming = case.operation.path.endswith(":stream")
        parameters["game_id"] = targets.finished if streaming else targets.active
    before = targets.versions()
    response = case.call_and_validate(base_url=targets.server.http, checks=CHECKS, timeout=30)
    if response.status_code >= 400:
        assert targets.versions() == before, "a rejected request changed a game"
