"""The web app as the server serves it (service/api/web.py): its pages at the app's
routes, a strict Content-Security-Policy, content-hashed assets cached for good and
ETags, --no-web, and a clear 503 page, never a blank one, when the build is missing or
older than its sources. Also: the app type-checks under tsc --strict."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from service.api.web import load_build
from tests.support.rest import Rest
from tests.support.server import ROOT, ServerProcess, running_server

WEB = ROOT / "clients" / "web"


def test_the_pages_and_assets_are_served_with_a_strict_policy_and_caching(server: ServerProcess) -> None:
    rest = Rest(server.http)
    page = rest.get("/")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self';" in policy and "style-src 'self';" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy and "frame-ancestors 'none'" in policy
    assert "connect-src 'self';" in policy  # the Host header is never quoted (--public-origin is)
    assert page.headers["cache-control"] == "no-cache" and page.headers["x-content-type-options"] == "nosniff"
    assert rest.get("/", headers={"If-None-Match": page.headers["etag"]}).status == 304
    html = page.body.decode()
    assert "<script>" not in html and " style=" not in html and "<style" not in html  # nothing inline
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing from elsewhere
    for route in ("/play/abc123", "/debug", "/debug/abc123"):
        assert rest.get(route).body == page.body
    (script,) = re.findall(r'src="(/assets/main-\w+\.js)"', html)
    asset = rest.get(script, headers={"Accept-Encoding": "gzip"})
    assert asset.status == 200 and asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert asset.headers["content-encoding"] == "gzip" and asset.headers["content-type"].startswith("text/javascript")
    assert rest.get("/assets/main-NOPE.js").status == 404
    assert rest.get("/nowhere").status == 404 and rest.get("/v1/games").status == 200  # the API is untouched


def test_no_web_serves_no_page() -> None:
    with running_server(["--no-web"]) as server:
        assert Rest(server.http).get("/").status == 404
    with running_server(env={"LUDOTHEQUE_WEB": "off"}) as server:
        assert Rest(server.http).get("/").status == 404


def test_a_missing_build_answers_a_clear_error_page(tmp_path: Path) -> None:
    with running_server(env={"LUDOTHEQUE_WEB_ROOT": str(tmp_path)}) as server:
        page = Rest(server.http).get("/")
        assert page.status == 503 and b"The web app is not built" in page.body and b"bootstrap.sh" in page.body
        assert "default-src 'self'" in page.headers["content-security-policy"]
        assert "The web app is not built" in server.log()  # and said at start


def test_a_build_older_than_its_sources_is_refused_by_name(tmp_path: Path) -> None:
    copy = tmp_path / "web"
    shutil.copytree(WEB, copy, ignore=shutil.ignore_patterns("node_modules"))
    shutil.copytree(ROOT / "clients" / "typescript" / "src", tmp_path / "typescript" / "src")
    assert load_build(copy / "dist", check_sources=True).problem == ""
    (copy / "src" / "router.ts").write_text((copy / "src" / "router.ts").read_text() + "\n// changed\n")
    problem = load_build(copy / "dist", check_sources=True).problem
    assert "older than its sources (src/router.ts changed)" in problem and "bootstrap.sh" in problem


def test_the_checkout_s_build_is_fresh() -> None:
    """scripts/bootstrap.sh rebuilt it if a source changed since (CI runs it first)."""
    assert load_build(WEB / "dist", check_sources=True).problem == ""


def test_the_web_app_type_checks_strictly() -> None:
    done = subprocess.run(
        ["npx", "--no-install", "tsc", "-p", ".", "--noEmit"], cwd=WEB, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
