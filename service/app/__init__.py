"""The use cases of the service (GameApp and its families), independent of any transport."""

from service.app.game_app import GameApp
from service.app.model.live_game import LiveGame

__all__ = ["GameApp", "LiveGame"]
