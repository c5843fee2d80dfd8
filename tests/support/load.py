"""Players playing many games at once through a real server, recording every move the
server acknowledged, and the check that each is stored exactly once: what the fault and
failover tests put a server under while they break its store."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from ludotheque import Client

from tests.support.games import assert_replays_cleanly, played_command_ids, seats


class Load:
    """Players playing many games at once, one thread per game, recording every move
    the server acknowledged. `run`'s `play_game` plays a game's moves however it sees fit."""

    def __init__(self, client: Client, games: int) -> None:
        created = [client.create_game("mooki", seats("mooki", humans=2)) for _ in range(games)]
        self.tokens = {game.game_id: list(game.seat_tokens) for game in created}
        self.acknowledged: dict[str, list[str]] = {game_id: [] for game_id in self.tokens}
        self.count = 0
        self.changed = threading.Condition()
        self.failure: BaseException | None = None

    def acknowledge(self, game_id: str, command_id: str) -> None:
        with self.changed:
            self.acknowledged[game_id].append(command_id)
            self.count += 1
            self.changed.notify_all()

    def wait_for(self, moves: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.count >= moves, 60), f"only {self.count} moves"

    def run(self, moves_per_game: int, play_game: Callable[[str, int], None]) -> threading.Thread:
        """Plays every game in the background (join the thread; it fails if a player did)."""

        def all_games() -> None:
            with ThreadPoolExecutor(len(self.tokens)) as pool:
                futures = [pool.submit(play_game, game_id, moves_per_game) for game_id in self.tokens]
                for future in futures:
                    future.result(timeout=180)

        def guarded() -> None:
            try:
                all_games()
            except BaseException as error:
                self.failure = error

        thread = threading.Thread(target=guarded)
        thread.start()
        return thread

    def check(self, target: str) -> None:
        """Every acknowledged move is in its game's history exactly once, and each history replays."""
        assert self.failure is None, self.failure
        for game_id, acknowledged in self.acknowledged.items():
            played = played_command_ids(assert_replays_cleanly(target, game_id), {0, 1})
            assert len(played) == len(set(played)), f"a move was played twice in {game_id}"
            assert set(acknowledged) <= set(played), f"an acknowledged move is missing from {game_id}"
