"""The TypeScript client's README pages work as written, in a real browser: the React page
(`examples/react-page.tsx`, with `@ludotheque/client/react` under StrictMode) and the
framework-free one (`examples/page.ts`), each bundled by esbuild and served from an origin
of their own, are played whole by two people at two browsers (one invites, the other
joins by the link), one of them reloading mid-game and playing on from the seat its
browser kept; each page load opens one WebSocket; and a page on an origin the server does
not list says so, naming the origin and the setting, for a WebSocket and a plain call
alike. The README's Vite recipe makes, from an empty folder, an app whose dev proxy
carries a game for two browsers. docs/API.md's EventSource example follows a seat's game
in a page too."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from ludotheque import Client
from ludotheque.v1 import game_pb2

from tests.support.browser import Browser, BrowserError, Page
from tests.support.redis import free_port
from tests.support.server import ROOT, ServerProcess, running_server
from tests.support.waiting import wait_until

# The package's build is rebuilt here: held for the module (tests/support/typescript_package.py).
pytestmark = pytest.mark.usefixtures("typescript_package")

PACKAGE = ROOT / "clients" / "typescript"
EXAMPLE_URL = "http://localhost:8080"
PAGES = {"react": "react-page.tsx", "plain": "page.ts"}
MOVES = '[aria-label="Your moves"] button:not([disabled])'
EVENTS_SHOWN = "document.querySelectorAll('[aria-label=\"What happened\"] li').length"
# Counts the WebSockets a page opens, before the page's own script runs; and turns every
# change of a text (React sets a text node's value) into a change of an attribute, which
# the browser driver's waits, watching the page's elements and attributes, notice.
SCAFFOLDING = """<script>
  window.sockets = [];
  const Native = WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) { super(url, protocols); window.sockets.push(String(url)); }
  };
  let changes = 0;
  new MutationObserver(() => { document.documentElement.dataset.changes = String(++changes); })
    .observe(document.documentElement, { characterData: true, subtree: true });
</script>"""


BLANK = '<!doctype html><html lang="en"><title>blank</title><body></body></html>'
# Marks the page when an EventSource is closed (a change the test can wait for).
WATCHED_EVENT_SOURCE = """window.EventSource = class extends EventSource {
  close() { super.close(); document.body.dataset.closed = "yes"; }
}"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass(frozen=True, slots=True)
class Site:
    """The pages, served at a port of 127.0.0.1 (an origin the server lists) and of
    localhost (the same pages on an origin it does not), and the server they call."""

    directory: Path
    port: int
    server: ServerProcess

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    directory = tmp_path_factory.mktemp("pages")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    port = httpd.server_address[1]
    try:
        with running_server(env={"LUDOTHEQUE_CORS_ORIGINS": f"http://127.0.0.1:{port}"}) as server:
            build_pages(directory, server.http)
            yield Site(directory, port, server)
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    started = Browser()
    try:
        yield started
    finally:
        started.close()


def build_pages(directory: Path, api: str) -> None:
    """Each example, as written but for the server's address, bundled as a page would be
    (React in its development build: StrictMode mounts twice there)."""
    assert (PACKAGE / "node_modules").is_dir(), "run scripts/bootstrap.sh (npm ci in clients/typescript)"
    subprocess.run(["npm", "run", "build", "--silent"], cwd=PACKAGE, check=True, capture_output=True, timeout=300)
    for name, source in PAGES.items():
        text = (PACKAGE / "examples" / source).read_text()
        assert EXAMPLE_URL in text
        # Beside the package's compiled examples, so that it imports the package by its name.
        entry = PACKAGE / "dist" / "examples" / f"{name}-against-test-server{Path(source).suffix}"
        entry.write_text(text.replace(EXAMPLE_URL, api))
        try:
            bundled = subprocess.run(
                [
                    str(PACKAGE / "node_modules" / ".bin" / "esbuild"),
                    str(entry),
                    "--bundle",
                    "--format=esm",
                    "--define:process.env.NODE_ENV='development'".replace("'", '"'),
                    f"--outfile={directory / f'{name}.js'}",
                ],
                cwd=PACKAGE,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            entry.unlink()
        assert bundled.returncode == 0, bundled.stderr
        html = f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name}</title>{SCAFFOLDING}</head>'
        mount = "root" if source.endswith(".tsx") else "app"  # as Vite's React and vanilla templates have it
        html += f'<body><div id="{mount}"></div><script type="module" src="{name}.js"></script></body></html>'
        (directory / f"{name}.html").write_text(html)


def players(page: Page) -> list[str]:
    found: list[str] = page.evaluate(
        "[...document.querySelectorAll('[aria-label=\"Players\"] li')].map((li) => li.textContent)"
    )
    return found


def events_shown(page: Page) -> int:
    return int(page.evaluate(EVENTS_SHOWN))


def wait_for_players(page: Page, *texts: str) -> None:
    """Until the players' list shows each text, in order (one per seat)."""
    try:
        page.wait_until(
            "(() => { const seats = [...document.querySelectorAll('[aria-label=\"Players\"] li')]"
            ".map((li) => li.textContent);"
            f" const wanted = {json.dumps(texts)};"
            " return seats.length === wanted.length && wanted.every((text, i) => seats[i].includes(text)); })()"
        )
    except BrowserError:
        raise AssertionError(f"{page.url()}: the players are {players(page)}, not {list(texts)}") from None


def start(page: Page, url: str, name: str) -> None:
    page.goto(url)
    page.type("input", name)
    page.click("form button")


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_two_people_play_a_whole_game_with_the_readme_page(kind: str, site: Site, browser: Browser) -> None:
    origin = site.origin
    host, guest = browser.new_page(isolated=True), browser.new_page(isolated=True)
    try:
        start(host, f"{origin}/{kind}.html", "Cléo")
        host.wait_for('a[href*="#join="]')
        invite = str(host.evaluate("document.querySelector('a[href*=\"#join=\"]').href"))
        game_id = re.sub(r".*#game=", "", host.url())
        wait_for_players(host, "Cléo (you) · here", "(a free seat)")
        start(guest, invite, "Robin")
        wait_for_players(guest, "Cléo · here", "Robin (you) · here")
        wait_for_players(host, "Cléo (you) · here", "Robin · here")  # Robin joined: named, and here
        assert host.evaluate("document.querySelector('a[href*=\"#join=\"]')") is None  # no free seat left
        pages = (host, guest)
        with Client(site.server.target) as lobby:
            moves = 0
            while (game := lobby.get_game(game_id)).status == game_pb2.GAME_STATUS_ACTIVE:
                if moves == 6:  # Cléo reloads: her browser kept her seat
                    host.goto(f"{origin}/{kind}.html#game={game_id}")
                    host.wait_until("document.querySelectorAll('[aria-label=\"Players\"] li').length === 2")
                    assert "Cléo (you)" in players(host)[0]
                mover = pages[game.to_act[0]]
                mover.wait_until(f"{EVENTS_SHOWN} >= {game.version}")  # it has seen the game so far
                shown = events_shown(mover)
                mover.click(MOVES)
                mover.wait_until(f"{EVENTS_SHOWN} > {shown}")
                moves += 1
            summary = game.outcome.summary
        for page in pages:
            page.wait_until("document.querySelector('[role=\"status\"]')")
            assert page.text('[role="status"]') == summary
            assert page.evaluate("window.sockets.length") == 1, "one WebSocket per page load, StrictMode or not"
    finally:
        host.close()
        guest.close()


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_a_page_on_an_origin_the_server_does_not_list_says_which_and_where_to_list_it(
    kind: str, site: Site, browser: Browser
) -> None:
    with Client(site.server.target) as lobby:
        game_id = lobby.create_game("mooki", ["Cléo", "Robin"]).game_id
    page = browser.new_page(isolated=True)
    try:
        page.goto(f"http://localhost:{site.port}/{kind}.html#game={game_id}")  # localhost, not 127.0.0.1
        page.wait_for('[role="alert"]')
        said = page.text('[role="alert"]')
        assert f"http://localhost:{site.port}" in said and "--cors-origins" in said, said
        assert page.evaluate("window.sockets.length") == 1, "said at once: no retry"
    finally:
        page.close()


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_a_plain_call_from_an_origin_the_server_does_not_list_says_so_too(
    kind: str, site: Site, browser: Browser
) -> None:
    """Creating a game (a Connect call, not the WebSocket) from that origin: fetch says only
    "Failed to fetch"; the client says which origin, and the setting to change."""
    page = browser.new_page(isolated=True)
    try:
        start(page, f"http://localhost:{site.port}/{kind}.html", "Cléo")
        page.wait_for('[role="alert"]')
        said = page.text('[role="alert"]')
        assert said.startswith(
            f"[permission_denied] Origin not in --cors-origins (LUDOTHEQUE_CORS_ORIGINS): http://localhost:{site.port}."
        ), said
        assert site.server.http in said, said
    finally:
        page.close()


def test_the_api_docs_event_source_example_follows_a_seats_game_in_a_browser(site: Site, browser: Browser) -> None:
    # docs/API.md, "A seat's own events in a browser": a stream ticket for the seat's
    # token, then EventSource, in a page of another origin (listed in --cors-origins).
    api_doc = (ROOT / "docs" / "API.md").read_text()
    section = api_doc[api_doc.index("\n## REST, with curl\n") : api_doc.index("\n## Play over WebSocket\n")]
    [example] = re.findall(r"```js\n(.*?)```", section, re.S)
    (site.directory / "blank.html").write_text(BLANK)
    with Client(site.server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", {"name": "Robin", "bot": "greedy"}])
        cleo = lobby.with_token(created.seat_tokens[0])
        finished = cleo.take_over(created.game_id, bot="random")  # the bots play it out
    page = browser.new_page(isolated=True)
    try:
        page.goto(f"{site.origin}/blank.html")
        given = {"H": site.server.http, "gameId": created.game_id, "seatToken": created.seat_tokens[0]}
        names = "".join(f"const {name} = {json.dumps(value)}; " for name, value in given.items())
        page.evaluate(WATCHED_EVENT_SOURCE)
        page.evaluate(f"(async () => {{ {names}let next = 1; window.following = () => next;\n{example}\n}})()")
        page.wait_until("document.body.dataset.closed === 'yes'")  # the stream ended, and the page closed it
        assert page.evaluate("window.following()") == finished.version + 1  # every event, in order
    finally:
        page.close()


VITE_SECTION = "## A Vite app in minutes\n"


def vite_blocks() -> tuple[str, str]:
    """The README's Vite recipe: its shell block and its vite.config block."""
    section = (PACKAGE / "README.md").read_text().split(VITE_SECTION, 1)[1].split("\n## ", 1)[0]
    shell, config = re.findall(r"```(?:sh|js)\n(.*?)```", section, re.S)
    return shell, config


def serves_the_app(port: int) -> bool:
    """Whether 127.0.0.1:`port` answers with the app's page (its scaffolding in it): an
    open port alone may be anyone's, a moment before Vite's own --strictPort refusal."""
    try:
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
        with direct.open(f"http://127.0.0.1:{port}/", timeout=5) as answer:
            return "window.sockets = [];" in answer.read().decode()
    except OSError:
        return False


def test_the_vite_recipe_makes_an_app_that_plays_through_its_dev_proxy(tmp_path: Path, browser: Browser) -> None:
    """As the README says, from an empty folder: Vite's React template, the package (its
    tarball here, as it is not on the registry), the README's vite.config (the proxy to
    a real server), the React page in src/main.tsx with the page's own origin as the
    address; its dev server serves it, and two browsers start and join a game through
    the proxy, Connect and the WebSocket alike, on a server that lists no origin."""
    packed = subprocess.run(
        ["npm", "pack", "--json", "--pack-destination", str(tmp_path)],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    tarball = tmp_path / json.loads(packed.stdout[packed.stdout.index("[") :])[0]["filename"]
    shell, config = vite_blocks()
    # Without a terminal, npm asks nothing: --yes says what a reader would answer.
    script = shell.replace("npm create vite", "npm create --yes vite").replace("@ludotheque/client", str(tarball))
    made = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    app = tmp_path / "my-game"
    index = (app / "index.html").read_text()
    assert '<div id="root"></div>' in index  # the mount point the page uses
    (app / "index.html").write_text(index.replace("</head>", f"{SCAFFOLDING}</head>", 1))  # the test's watch
    page_source = (PACKAGE / "examples" / "react-page.tsx").read_text()
    assert f'const baseUrl = "{EXAMPLE_URL}";' in page_source
    (app / "src" / "main.tsx").write_text(page_source.replace(f'"{EXAMPLE_URL}"', "location.origin", 1))
    with running_server() as server:
        (app / "vite.config.ts").write_text(config.replace(EXAMPLE_URL, server.http))
        port = free_port()
        said = (tmp_path / "vite.log").open("w")
        vite = subprocess.Popen(
            [str(app / "node_modules" / ".bin" / "vite"), "--host", "127.0.0.1", "--port", str(port), "--strictPort"],
            cwd=app,
            stdout=said,
            stderr=subprocess.STDOUT,
            text=True,
        )
        host, guest = browser.new_page(isolated=True), browser.new_page(isolated=True)
        try:
            # Served once its port answers (its banner's words and colours change with the
            # version and with CI=true; a banner awaited and never matched hangs the suite).
            wait_until(lambda: vite.poll() is not None or serves_the_app(port), 120, f"vite serving on port {port}")
            assert vite.poll() is None, (tmp_path / "vite.log").read_text()[-3000:]
            try:
                start(host, f"http://127.0.0.1:{port}/", "Cléo")
            except BrowserError as error:
                raise AssertionError(f"{error}\nvite said:\n{(tmp_path / 'vite.log').read_text()[-3000:]}") from None
            host.wait_for('a[href*="#join="]')
            invite = str(host.evaluate("document.querySelector('a[href*=\"#join=\"]').href"))
            wait_for_players(host, "Cléo (you) · here", "(a free seat)")
            start(guest, invite, "Robin")
            wait_for_players(guest, "Cléo · here", "Robin (you) · here")
            wait_for_players(host, "Cléo (you) · here", "Robin · here")
            sockets = host.evaluate("window.sockets")  # Vite's own (hot reload), and the game's
            played = [url for url in sockets if url.split("?")[0] == f"ws://127.0.0.1:{port}/v1/play"]
            assert len(played) == 1, sockets  # the page's origin: through the proxy
        finally:
            host.close()
            guest.close()
            vite.terminate()
            vite.wait(30)
            said.close()
