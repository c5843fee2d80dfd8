"""The picnic's rules version and the data it is played with (seeds/picnic/)."""

from __future__ import annotations

from engines.data import GameData, load_game_data

# Recorded in every event. Bump it when a change to the rules (code or data) would
# make a recorded game play differently, and pin the data in seeds/picnic/data-lock.json.
RULES_VERSION = "picnic/3"

DATA: GameData = load_game_data("picnic", RULES_VERSION, ("boards.json", "tiles.json"))
