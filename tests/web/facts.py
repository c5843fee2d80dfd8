"""What a family meets on a page, measured in the browser rather than compared as pixels:
whether the board, the player's own hand or pieces and every move offered are on the
screen without scrolling; every tap target's size; text cut off; the board's labels'
size in CSS pixels. `page_facts(page)` returns them for the page as it is (scrolled to
the top first), measured by clients/web/test/facts.js."""

from __future__ import annotations

from typing import Any

from tests.support.browser import WEB, Page

FACTS_JS = (WEB / "test" / "facts.js").read_text()


def page_facts(page: Page) -> dict[str, Any]:
    facts: dict[str, Any] = page.evaluate(FACTS_JS)
    return facts


def problems(facts: dict[str, Any]) -> dict[str, list[str]]:
    """The facts that are not as they should be (an empty dict when all is well)."""
    return {key: facts[key] for key in ("small", "clipped", "smallLabels", "outOfView") if facts[key]}
