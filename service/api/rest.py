"""REST: each RPC annotated with google.api.http served on its route, the request
transcoded from the path, query and JSON body with the proto3 JSON mapping, the
response sent back as JSON (every field present, lowerCamelCase; a large answer written in a
heavy worker: service/app/model/json_answers.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.rpc import status_pb2

from service.api.body_limits import message_limit, parse_off_loop
from service.api.http_body import (
    BodyGone,
    BodyRefused,
    BodyStalled,
    BodyUndecodable,
    answer_and_close,
    read_body,
)
from service.api.http_rules import HttpBinding
from service.api.locales import fill_locale
from service.api.rpcs import UseCase
from service.app.model.errors import ServiceError, invalid_argument, retry_after_seconds, status_of, unauthenticated
from service.app.model.json_answers import JsonAnswers, answering, as_json

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
CANCELLED, DEADLINE_EXCEEDED = 1, 4  # google.rpc.Code
CLIENT_CLOSED = 499  # what the access log says of a request its client left (nobody reads the answer)
CONTENT_TOO_LARGE = 413
JSON = "application/json"
# Methods that only read: any other one changes something, and needs a JSON body.
READING = frozenset({"GET", "HEAD", "OPTIONS"})


def to_json(message: Message) -> str:
    return as_json(message, "rest").decode()


def error_response(error: ServiceError) -> web.Response:
    retry_after = retry_after_seconds(error.details)
    return web.Response(
        status=error.code.http_status,
        text=to_json(status_of(error)),
        content_type="application/json",
        headers={"Retry-After": str(retry_after)} if retry_after is not None else None,
    )


def bearer_token(request: web.Request) -> str:
    header = request.headers.get("Authorization", "")
    if not header:
        return ""
    if not header.isascii():  # a token is ASCII; other bytes come undecoded (surrogates)
        raise unauthenticated("The Authorization header must be 'Bearer <token>', in ASCII.")
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthenticated("The Authorization header must be 'Bearer <token>'.")
    return token.strip()


class Transcoder:
    """Builds an RPC's request message from an HTTP request (its body at most the RPC's
    limit, body_limits.py, with `max_body_bytes` for the largest)."""

    def __init__(self, binding: HttpBinding, max_body_bytes: int) -> None:
        self.binding = binding
        self.request_type = message_factory.GetMessageClass(binding.method.input_type)
        self.max_body_bytes = message_limit(binding.method.name, max_body_bytes)
        self.query: dict[str, FieldDescriptor] = {}
        for field in binding.query_fields():
            self.query[field.name] = field
            self.query[field.json_name] = field

    async def request(self, http: web.Request) -> Message:
        message = self.request_type()
        if self.binding.body == "*":
            body = await self._body(http)
            if body.strip():
                await parse_off_loop(len(body), lambda: _parse_json(body, message))
        query: dict[str, Any] = {}
        for name, value in http.query.items():
            field = self.query.get(name)
            if field is None:
                known = ", ".join(sorted(f.json_name for f in self.binding.query_fields())) or "none"
                raise invalid_argument(name, f"Unknown query parameter {name!r} (known: {known}).")
            converted = _query_value(field, value)
            if field.is_repeated:
                query.setdefault(field.json_name, []).append(converted)
            elif field.json_name in query:  # ?pageSize=1&pageSize=2: which one was meant?
                raise invalid_argument(name, f"The query parameter {name!r} is given more than once.")
            else:
                query[field.json_name] = converted
        for name in self.binding.path_fields:
            query[self.request_type.DESCRIPTOR.fields_by_name[name].json_name] = http.match_info[name]
        try:
            json_format.ParseDict(query, message)
        except json_format.ParseError as error:
            raise invalid_argument("query", f"A parameter is not valid: {error}") from None
        return message

    async def _body(self, http: web.Request) -> str:
        try:
            data = await read_body(http, self.max_body_bytes)
        except BodyUndecodable as error:
            raise invalid_argument("body", str(error)) from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise invalid_argument("body", "The request body is not UTF-8.") from None


def _parse_json(body: str, message: Message) -> None:
    try:
        json_format.Parse(body, message)
    except json_format.ParseError as error:
        raise invalid_argument("body", f"The request body is not valid: {error}") from None


def too_large_response(refused: BodyRefused, method: str) -> web.Response:
    """413, with RESOURCE_EXHAUSTED and the limit in its google.rpc.Status."""
    response = error_response(refused.error(method))
    response.set_status(CONTENT_TOO_LARGE)
    return response


def _query_value(field: FieldDescriptor, value: str) -> Any:
    if field.type == FieldDescriptor.TYPE_BOOL:
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0"):
            return False
        raise invalid_argument(field.json_name, f"{field.json_name} must be true or false.")
    return value  # ParseDict reads numbers and enum names from strings


def request_timeout(error: BodyStalled) -> web.Response:
    """408, with DEADLINE_EXCEEDED in its google.rpc.Status: the client stopped sending
    (or sent too slowly); the connection is closed, what is left of the body unread."""
    status = status_pb2.Status(code=DEADLINE_EXCEEDED, message=str(error))
    return web.Response(status=408, text=to_json(status), content_type=JSON)


def check_writable(http: web.Request) -> None:
    """Refuses a request that changes something unless it is JSON (or, bodiless, carries
    a token). A browser sends a form's or a `text/plain` body across origins without
    asking the server first (a "simple" request): a foreign page could then create games
    or take seats in its visitors' name. A JSON body, or an Authorization header, makes
    the browser ask first (a preflight), which --cors-origins answers."""
    if http.method in READING or http.content_type == JSON:
        return
    if "Authorization" in http.headers and not http.body_exists:
        return
    raise UnsupportedMediaType()


class UnsupportedMediaType(Exception):
    """A request that changes something, sent as what a foreign page may send unasked."""

    def response(self, http: web.Request) -> web.Response:
        sent = http.headers.get("Content-Type", "")
        error = invalid_argument(
            "Content-Type",
            f"A request that changes something needs Content-Type: {JSON}, not {sent or 'none'!r} "
            "(a browser's form or text/plain request cannot write).",
        )
        reply = error_response(error)
        reply.set_status(415)
        reply.headers["Accept-Post"] = JSON
        return reply


def client_gone(error: BodyGone) -> web.Response:
    """The answer to a request whose client left in the middle of its body: never read,
    but the access log tells it from a server's failure."""
    status = status_pb2.Status(code=CANCELLED, message=str(error))
    return web.Response(status=CLIENT_CLOSED, text=to_json(status), content_type=JSON)


def unary_handler(transcoder: Transcoder, use_case: UseCase, answers: JsonAnswers | None = None) -> Handler:
    """`answers`: writes the answers (a large one in a heavy worker); none: all on the loop."""
    method = transcoder.binding.method.name

    async def handle(http: web.Request) -> web.StreamResponse:
        try:
            check_writable(http)
            request = fill_locale(await transcoder.request(http), http.headers.get("Accept-Language", ""))
            token = bearer_token(http)
            with answering() as slot:
                response = await use_case(request, token)
            if answers is None:
                body = as_json(response, "rest")
            else:
                body = await answers.encode(method, response, "rest", token, slot)
        except ServiceError as error:
            return error_response(error)
        except BodyStalled as error:
            return await answer_and_close(http, request_timeout(error))
        except BodyRefused as refused:
            answer = too_large_response(refused, transcoder.binding.method.name)
            return await answer_and_close(http, answer) if refused.compressed else answer
        except BodyGone as error:
            return client_gone(error)
        except UnsupportedMediaType as refusal:
            return refusal.response(http)
        return web.Response(body=body, content_type=JSON, charset="utf-8")

    return handle
