"""Every request of the HTTP port through the request edge (edge.py): a request id (the
`X-Request-Id` header, or new) sent back in the `X-Request-Id` response header, the
request context for its log lines, and its access log line (method and route template,
status, duration, bytes). The route's template is logged, never the raw path or query."""

from __future__ import annotations

import asyncio

from aiohttp import web

from service.api.edge import observed
from service.api.rest import Handler
from service.api.rpcs import SERVICE

REQUEST_ID_KEY = web.RequestKey("ludotheque.request_id", str)
CONNECT_PREFIX = f"/{SERVICE.full_name}/"


def _route(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else "unmatched"


@web.middleware
async def observe_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
    transport = "connect" if request.path.startswith(CONNECT_PREFIX) else "http"
    with observed(transport, f"{request.method} {_route(request)}", request.headers.get) as call:
        request[REQUEST_ID_KEY] = call.request_id
        if request.content_length is not None:
            call.extra["bytes_in"] = request.content_length
        try:
            response = await handler(request)
        except web.HTTPException as error:  # a redirect, or an error no middleware answered
            call.ended(str(error.status), error=error.status >= 400)
            raise
        except asyncio.CancelledError:
            call.ended("499", error=False)  # the client went away first
            raise
        sent = response.body_length if response.prepared else getattr(response, "content_length", None)
        call.ended(str(response.status), error=response.status >= 400, bytes_out=sent)
        return response


async def add_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """The response's X-Request-Id (an on_response_prepare hook: streams get it too)."""
    request_id = request.get(REQUEST_ID_KEY)
    if request_id:
        response.headers["X-Request-Id"] = request_id
