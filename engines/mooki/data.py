"""Mooki Island's rules version and the data it is played with (seeds/mooki/)."""

from __future__ import annotations

from engines.data import GameData, load_game_data

# Recorded in every event. Bump it when a change to the rules (code or data) would
# make a recorded game play differently, and pin the data in seeds/mooki/data-lock.json.
RULES_VERSION = "mooki/3"

DATA: GameData = load_game_data("mooki", RULES_VERSION, ("cards.json", "trophies.json"))
