"""docs/RULE_CODES.md is what scripts/rule_codes.py writes from the engines and the
English catalog: every rule code with its meaning and message key."""

from __future__ import annotations

from scripts.rule_codes import DOCUMENT, render


def test_the_rule_codes_document_is_fresh() -> None:
    assert DOCUMENT.read_text() == render(), "docs/RULE_CODES.md is stale: run python scripts/rule_codes.py"
