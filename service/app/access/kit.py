"""What every use case works with, built once by GameApp (`Kit`): the live games, who a
token stands for, the token authority, the creation quotas, the metrics, the time and
where bots choose their moves; and
`UseCase`, the base that gives a use case those parts by name and the opening most of
them share: load the game, then see who the caller is in it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engines.contract import Viewer
from service.app.access.auth import TokenAuthority
from service.app.access.limits import Quotas
from service.app.access.viewers import Viewers
from service.app.model.bot_choices import BotChoices
from service.app.model.live import LiveGames
from service.app.model.live_game import LiveGame
from service.app.observe.metrics import Metrics


@dataclass(frozen=True, slots=True)
class Kit:
    """The dependencies the use cases share (one per server process)."""

    games: LiveGames
    viewers: Viewers
    tokens: TokenAuthority
    quotas: Quotas
    metrics: Metrics
    now_ms: Callable[[], int]
    bots: BotChoices  # where each bot chooses: inline, or in a heavy worker (model/bot_choices.py)

    async def open(self, game_id: str, token: str, *, refresh: bool = True) -> tuple[LiveGame, Viewer]:
        """The game (`refresh`: with what other processes appended, LiveGames.load) and
        who `token` stands for in it (Viewers.in_game: UNAUTHENTICATED for a token that
        is not one of the game's)."""
        live = await self.games.load(game_id, refresh=refresh)
        return live, self.viewers.in_game(live, token)


class UseCase:
    """A use case built from the kit, and what it needs of its own besides. The kit's
    parts are plain attributes (read on every move: a property would be a call each)."""

    def __init__(self, kit: Kit) -> None:
        self._kit = kit
        self._games = kit.games
        self._viewers = kit.viewers
        self._tokens = kit.tokens
        self._quotas = kit.quotas
        self._metrics = kit.metrics
        self._now_ms = kit.now_ms
        self._bots = kit.bots

    async def _open(self, game_id: str, token: str, *, refresh: bool = True) -> tuple[LiveGame, Viewer]:
        """The opening of a request about one game, for a caller: Kit.open."""
        return await self._kit.open(game_id, token, refresh=refresh)
