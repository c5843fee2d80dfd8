"""Pirates & Compagnie's rules version and the data it is played with (seeds/pirates/)."""

from __future__ import annotations

from engines.data import GameData, load_game_data

# Recorded in every event. Bump it when a change to the rules (code or data) would
# make a recorded game play differently, and pin the data in seeds/pirates/data-lock.json.
RULES_VERSION = "pirates/2"

DATA: GameData = load_game_data("pirates", RULES_VERSION, ("cards.json", "sea_lanes.json"))
