"""The web app's tests share one headless Chromium (its pages reused); the tests of a
module, one real server (tests/support/server.py's `server`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.browser import Browser, Page


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    started = Browser()
    try:
        yield started
    finally:
        started.close()


@pytest.fixture(scope="session")
def page(browser: Browser) -> Page:
    """The session's desktop page, reused from test to test."""
    return browser.new_page()


@pytest.fixture
def clean_page(page: Page) -> Iterator[Page]:
    """The page; after the test, nothing went wrong in it (no console error, uncaught
    exception, CSP violation or request to another origin). The page leaves what an
    earlier test left in it first: a game page of another module's server, stopped
    since, would otherwise try to reconnect during this test."""
    page.goto("about:blank")
    page.problems()
    yield page
    assert page.problems() == []
