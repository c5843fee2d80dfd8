"""The terminal's language, for the words of `ludotheque play` and `replay`: the
--locale flag, else the environment as gettext reads it (LANGUAGE, LC_ALL,
LC_MESSAGES, LANG), else English."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping

VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def environment_locale(environ: Mapping[str, str] | None = None) -> str:
    """The environment's languages as an Accept-Language list ("fr_FR.UTF-8" -> "fr-FR";
    LANGUAGE's "fr:en" -> "fr, en"); "" for C, POSIX or nothing set."""
    environ = os.environ if environ is None else environ
    for name in VARIABLES:
        value = environ.get(name, "")
        tags = [_tag(part) for part in value.split(":")]
        tags = [tag for tag in tags if tag]
        if tags:
            return ", ".join(tags)
    return ""


def _tag(value: str) -> str:
    language = value.split(".", 1)[0].split("@", 1)[0]
    if language in ("", "C", "POSIX"):
        return ""
    return language.replace("_", "-")


def add_argument(parser: argparse.ArgumentParser) -> None:
    """--locale, on a subcommand's parser."""
    parser.add_argument(
        "--locale",
        default=None,
        metavar="TAG",
        help="the language of moves and events, e.g. fr or en (default: from LANG and friends, else English)",
    )


def chosen(flag: str | None) -> str:
    return flag if flag is not None else environment_locale()
