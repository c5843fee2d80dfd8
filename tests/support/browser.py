"""A real browser for the web app's tests: Debian's headless Chromium (/usr/bin/chromium,
installed by scripts/bootstrap.sh) driven by puppeteer-core from clients/web's npm
packages, through a small Node driver (clients/web/test/driver.mjs) that this module
talks to line by line. One browser for the test session; pages are reused.

Every wait has a deadline and waits on a condition in the page (a selector, an
expression), never on time."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.support.server import ROOT

WEB = ROOT / "clients" / "web"
DRIVER = WEB / "test" / "driver.mjs"
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "build" / "screenshots"  # gitignored: written by every run
DESKTOP = (1280, 800)
PHONE = (390, 844)
TIMEOUT_MS = 15_000


class BrowserError(Exception):
    """The driver could not do what was asked (a selector never showed, a script threw)."""


class Browser:
    def __init__(self) -> None:
        assert CHROMIUM.exists(), "no /usr/bin/chromium: run scripts/bootstrap.sh (apt-get install chromium)"
        assert (WEB / "node_modules" / "puppeteer-core").is_dir(), "run scripts/bootstrap.sh (npm ci in clients/web)"
        self._profile = Path(tempfile.mkdtemp(prefix="ludotheque-chromium-"))
        self._stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed by close())
        self._process = subprocess.Popen(
            ["node", str(DRIVER), str(CHROMIUM), str(self._profile)],
            cwd=WEB,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._lock = threading.Lock()
        self._next = 0
        ready = self._read()
        if not ready.get("ready"):
            raise BrowserError(f"the browser did not start: {ready}")
        self.version = str(ready["version"])

    def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self._stderr.seek(0)
            raise BrowserError(f"the browser driver stopped:\n{self._stderr.read()[-4000:]}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def call(self, op: str, **arguments: Any) -> Any:
        with self._lock:
            self._next += 1
            assert self._process.stdin is not None
            self._process.stdin.write(json.dumps({"id": self._next, "op": op, **arguments}) + "\n")
            self._process.stdin.flush()
            reply = self._read()
        assert reply.get("id") == self._next, reply
        if not reply["ok"]:
            raise BrowserError(f"{op} {arguments}: {reply['error']}")
        return reply["result"]

    def new_page(self, size: tuple[int, int] = DESKTOP, *, mobile: bool = False, isolated: bool = False) -> Page:
        """A new page; `isolated`: with storage of its own (another person's browser)."""
        return Page(self, self.call("newPage", width=size[0], height=size[1], mobile=mobile, isolated=isolated))

    def close(self) -> None:
        try:
            if self._process.poll() is None:
                self.call("quit")
                self._process.wait(20)
        except (BrowserError, OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            self._stderr.close()
            shutil.rmtree(self._profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, number: int) -> None:
        self.browser = browser
        self.number = number

    def _call(self, op: str, **arguments: Any) -> Any:
        return self.browser.call(op, page=self.number, **arguments)

    def goto(self, url: str) -> dict[str, Any]:
        answer: dict[str, Any] = self._call("goto", url=url)
        return answer

    def wait_for(self, selector: str, timeout_ms: int = TIMEOUT_MS) -> None:
        self._call("waitFor", selector=selector, timeout=timeout_ms)

    def wait_until(self, expression: str, timeout_ms: int = TIMEOUT_MS) -> Any:
        """Waits until the JavaScript `expression` is truthy in the page; returns its value."""
        return self._call("waitForFunction", expression=expression, timeout=timeout_ms)

    def click(self, selector: str, timeout_ms: int = TIMEOUT_MS) -> None:
        self._call("click", selector=selector, timeout=timeout_ms)

    def type(self, selector: str, text: str) -> None:
        self._call("type", selector=selector, text=text, timeout=TIMEOUT_MS)

    def select(self, selector: str, value: str) -> None:
        self._call("select", selector=selector, value=value, timeout=TIMEOUT_MS)

    def focus(self, selector: str) -> None:
        self._call("focus", selector=selector, timeout=TIMEOUT_MS)

    def press(self, key: str) -> None:
        self._call("press", key=key)

    def evaluate(self, expression: str) -> Any:
        return self._call("evaluate", expression=expression)

    def text(self, selector: str) -> str:
        return str(self.evaluate(f"document.querySelector({json.dumps(selector)})?.textContent ?? ''"))

    def url(self) -> str:
        return str(self._call("url"))

    def close(self) -> None:
        self._call("closePage")

    def drop_file(self, selector: str, name: str, content: str) -> None:
        self._call("drop", selector=selector, name=name, content=content, timeout=TIMEOUT_MS)

    def viewport(self, size: tuple[int, int], *, mobile: bool = False) -> None:
        self._call("viewport", width=size[0], height=size[1], mobile=mobile)

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self._call("screenshot", path=str(path), fullPage=True)
        return path

    def screenshots(self, name: str) -> list[Path]:
        """The page at desktop and at phone size (back to desktop after). The phone is a
        narrow window, not an emulated device: switching to one reloads the page (a
        live game would have to load again, a dropped log file would be gone)."""
        taken = [self.screenshot(f"{name}-desktop")]
        self.viewport(PHONE)
        taken.append(self.screenshot(f"{name}-phone"))
        self.viewport(DESKTOP)
        return taken

    def accessibility_violations(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations on the page as it is now."""
        found: list[dict[str, Any]] = self._call("axe")
        return found

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, CSP violations and requests to another
        origin since the last call."""
        found: list[str] = self._call("problems")
        return found
