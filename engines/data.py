"""Access to the games' static data in seeds/<game>/ (decks, boards, tiles), pinned
to the rules version it belongs to.

The data is part of the rules, like code: it is read once, when an engine module is
imported, and never again. LUDOTHEQUE_SEEDS points elsewhere (an installed copy).

A game's data files are read together as one `GameData`, named by a content digest
(a SHA-256 of their parsed JSON, so reformatting a file or rewording its "about"
note changes nothing). Every game
records that digest in its GameStarted event: a game is dealt and replayed with the
same data or not at all (`GameData.require`). seeds/<game>/data-lock.json pins the
digest of each rules version this build plays; a test fails when the files no longer
match it, since editing a data file changes the rules (a new rules version)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engines.contract import DataUnavailable

_DEFAULT_SEEDS = Path(__file__).resolve().parent.parent / "seeds"
LOCK_FILE = "data-lock.json"


def seeds_dir() -> Path:
    return Path(os.environ.get("LUDOTHEQUE_SEEDS", _DEFAULT_SEEDS))


def load_json(game: str, name: str) -> Any:
    """The parsed JSON file seeds/<game>/<name>."""
    path = seeds_dir() / game / name
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def content_digest(documents: Mapping[str, Any]) -> str:
    """ "sha256:<hex>" of the documents (file name -> parsed JSON), independent of
    key order, formatting and each file's "about" note (prose for people, not rules)."""
    content = {name: _without_about(document) for name, document in documents.items()}
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _without_about(document: Any) -> Any:
    if isinstance(document, dict):
        return {key: value for key, value in document.items() if key != "about"}
    return document


@dataclass(frozen=True)
class GameData:
    """One game's data files, parsed, and the digest that names them."""

    game: str
    rules_version: str  # the rules version this build plays the data under
    documents: Mapping[str, Any]
    digest: str

    def __getitem__(self, name: str) -> Any:
        return self.documents[name]

    def require(self, digest: str) -> None:
        """Raises DataUnavailable unless a game recorded with `digest` can be
        replayed with this data."""
        if digest != self.digest:
            raise DataUnavailable(self.game, self.rules_version, digest, self.digest)


def load_game_data(game: str, rules_version: str, names: Sequence[str]) -> GameData:
    """The files `names` of seeds/<game>/, as played under `rules_version`."""
    documents = {name: load_json(game, name) for name in names}
    return GameData(game, rules_version, MappingProxyType(documents), content_digest(documents))


def pinned_digests(game: str) -> dict[str, str]:
    """seeds/<game>/data-lock.json: rules version -> the digest of its data."""
    pins = load_json(game, LOCK_FILE)["versions"]
    return {str(version): str(digest) for version, digest in pins.items()}
