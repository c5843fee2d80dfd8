"""A plain HTTP client for the REST tests: what curl does, with the standard library."""

from __future__ import annotations

import http.client
import json
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class Rest:
    def __init__(self, base_url: str, token: str | None = None, timeout: float = 30) -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.token = token
        self.timeout = timeout

    def with_token(self, token: str | None) -> Rest:
        other = Rest(f"http://{self.host}:{self.port}", token, self.timeout)
        return other

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return {**headers, **(extra or {})}

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Reply:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            data = body if isinstance(body, bytes) else (None if body is None else json.dumps(body).encode())
            connection.request(method, path, body=data, headers=self.headers(headers))
            response = connection.getresponse()
            return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            connection.close()

    def get(self, path: str, **kwargs: Any) -> Reply:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, body: Any, **kwargs: Any) -> Reply:
        return self.call("POST", path, body, **kwargs)

    def resumed_events(self, path: str) -> list[tuple[str, str, Any]]:
        """Every server-sent event of a stream that comes to an end (a finished game's),
        coming back after each stream from its last id, as an EventSource does, until
        the server answers 204: nothing more will come."""
        got: list[tuple[str, str, Any]] = []
        while True:
            before = len(got)
            got += self.events(path, got[-1][0] if got else None, ended=True)
            if len(got) == before:
                return got

    def events(
        self, path: str, last_event_id: str | None = None, *, ended: bool = False
    ) -> Generator[tuple[str, str, Any], None, None]:
        """Server-sent events as (id, event type, parsed data), until the server ends
        the stream. Stop iterating to drop the connection. `ended`: a 204 (nothing will
        ever come) is no event, not an error."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            extra = {"Accept": "text/event-stream"}
            if last_event_id is not None:
                extra["Last-Event-ID"] = last_event_id
            connection.request("GET", path, headers=self.headers(extra))
            response = connection.getresponse()
            if ended and response.status == 204:
                return
            if response.status != 200:
                raise AssertionError(f"stream answered {response.status}: {response.read()!r}")
            assert response.getheader("Content-Type", "").startswith("text/event-stream")
            fields: dict[str, str] = {}
            while True:
                line = response.readline()
                if not line:
                    return
                text = line.decode().rstrip("\n")
                if text.startswith(":"):
                    continue  # a comment (keep-alive)
                if text == "":
                    if "data" in fields:
                        yield fields.get("id", ""), fields.get("event", "message"), json.loads(fields["data"])
                    fields = {}
                    continue
                name, _, value = text.partition(":")
                fields[name] = value.removeprefix(" ")
        finally:
            connection.close()
