"""The web app (clients/web, built by esbuild) served at / on the HTTP port: its pages,
its content-hashed assets, a strict Content-Security-Policy, and a clear error page
(503) when the build is missing or older than its sources, never a blank page.

The build is read once, at start, into memory (gzipped too). In a source checkout the
build is clients/web/dist and is checked against its sources (dist/build.json holds
the hash of every input); an installed copy (the container image) is found through
LUDOTHEQUE_WEB_ROOT and trusted as built."""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web

log = logging.getLogger(__name__)

WEB_ROOT_ENV = "LUDOTHEQUE_WEB_ROOT"
SOURCES = Path(__file__).resolve().parents[2] / "clients" / "web"
# The app's own routes (clients/web/src/router.ts): each answers the page, which then
# shows the right view. A new route of the app is added here too.
PAGE_ROUTES = ("/", "/play/{game_id}", "/join/{code}", "/debug", "/debug/{game_id}")
HASHED_ASSET = "immutable"
# 'self' covers the API, the event streams and, in today's browsers, a WebSocket to the
# same host; the WebSocket of the configured public origin (--public-origin) is named too
# for the older ones. Never the request's Host header: what a client writes there must
# not become a policy (a proxy's cache would serve it to everyone).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "font-src 'self'; connect-src 'self' {websockets}; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str


@dataclass(frozen=True, slots=True)
class Build:
    """The app as built: the page and the assets by name; or why it cannot be served."""

    page: Asset | None
    assets: dict[str, Asset]
    problem: str = ""


def web_root() -> tuple[Path, bool]:
    """Where the built app is, and whether its sources are beside it to check against."""
    configured = os.environ.get(WEB_ROOT_ENV)
    if configured:
        return Path(configured), False
    return SOURCES / "dist", True


def load_build(root: Path, check_sources: bool) -> Build:
    rebuild = "run scripts/bootstrap.sh (or `npm run build` in clients/web), or serve with --no-web"
    manifest = root / "build.json"
    if not (root / "index.html").is_file() or not manifest.is_file():
        return Build(None, {}, f"The web app is not built ({root} has no build): {rebuild}.")
    if check_sources:
        changed = _changed_input(root.parent, json.loads(manifest.read_text())["inputs"])
        if changed:
            return Build(None, {}, f"The web app's build is older than its sources ({changed} changed): {rebuild}.")
    assets = {
        path.name: _asset(path.read_bytes(), path.name)
        for path in sorted((root / "assets").iterdir())
        if path.is_file()
    }
    return Build(_asset((root / "index.html").read_bytes(), "index.html"), assets)


def _changed_input(sources: Path, inputs: dict[str, str]) -> str:
    """The first input of the build whose file is gone or differs, or ''."""
    for relative, digest in sorted(inputs.items()):
        path = sources / relative
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            return relative
    return ""


def _asset(body: bytes, name: str) -> Asset:
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if name.endswith((".js", ".mjs")):
        content_type = "text/javascript"
    elif name.endswith(".map"):
        content_type = "application/json"
    compressible = content_type.startswith("text/") or content_type in ("application/json", "image/svg+xml")
    gzipped = gzip.compress(body, 9, mtime=0) if compressible and len(body) > 1024 else None
    return Asset(body, gzipped, content_type, f'"{hashlib.sha256(body).hexdigest()[:32]}"')


def content_security_policy(public_origin: str = "") -> str:
    """The pages' policy; `public_origin` (e.g. https://ludo.example.org): where the
    browsers reach this server, whose WebSocket the policy names."""
    parts = urlsplit(public_origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return CSP.format(websockets="").replace(" ;", ";")
    scheme = "wss" if parts.scheme == "https" else "ws"
    return CSP.format(websockets=f"{scheme}://{parts.netloc}")


def mount(app: web.Application, public_origin: str = "") -> None:
    """Adds the app's pages and assets to the HTTP application."""
    policy = content_security_policy(public_origin)
    root, check_sources = web_root()
    build = load_build(root, check_sources)
    if build.problem:
        log.warning("%s", build.problem)

    async def page(request: web.Request) -> web.Response:
        if build.page is None:
            return _problem_page(build.problem, policy)
        return _send(request, build.page, "no-cache", policy)

    async def asset(request: web.Request) -> web.Response:
        found = build.assets.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound()
        return _send(request, found, "public, max-age=31536000, immutable", policy)

    for route in PAGE_ROUTES:
        app.router.add_get(route, page)
    app.router.add_get("/assets/{name}", asset)


def _headers(cache: str, policy: str) -> dict[str, str]:
    return {"Content-Security-Policy": policy, "Cache-Control": cache, **SECURITY_HEADERS}


def _send(request: web.Request, asset: Asset, cache: str, policy: str) -> web.Response:
    headers = {**_headers(cache, policy), "ETag": asset.etag, "Vary": "Accept-Encoding"}
    if asset.etag in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers=headers)
    body = asset.body
    if asset.gzipped is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
        body = asset.gzipped
        headers["Content-Encoding"] = "gzip"
    charset = "utf-8" if asset.content_type.startswith("text/") else None
    return web.Response(body=body, content_type=asset.content_type, charset=charset, headers=headers)


def _problem_page(problem: str, policy: str) -> web.Response:
    text = problem.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    html = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ludothèque: the web app is not ready'
        f"</title></head><body><main><h1>The web app is not ready</h1><p>{text}</p>"
        "<p>The API answers as usual on this port.</p></main></body></html>"
    )
    return web.Response(
        status=503, text=html, content_type="text/html", headers=_headers("no-store", policy), charset="utf-8"
    )
