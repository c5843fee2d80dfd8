"""Bot chains bought with one call: a take-over of the last player's seat plays the whole
game out (the bots play every seat), a table change appended like a move.

Before: a player's `:takeOver` of a game of one player and three bots played it out in
one call without handing the event loop back (up to 0.47 s a call: other players' calls
waited for all of it), and got around `--bot-game-rate 0`, so an anonymous creator could
make bot games at will. Now the chain hands the loop back every 2 ms (ARCHITECTURE.md,
"One table change"), and a game with no player left counts as a game of bots only."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator

import pytest
from ludotheque import Client
from ludotheque.pirates.v1 import pirates_pb2
from ludotheque.v1 import game_pb2

from tests.support.rest import Rest
from tests.support.server import ADMIN_TOKEN, ServerProcess, running_server

LONG = pirates_pb2.Options(island_distance=20)  # thousands of events for the bots to play
SEATS = [{"name": "Cléo"}, *({"name": f"Bot {n}", "bot": "random"} for n in range(3))]


@pytest.fixture(scope="module")
def policed() -> Iterator[ServerProcess]:
    with running_server(env={"LUDOTHEQUE_BOT_GAME_RATE": "0"}) as server:  # the server's own default
        yield server


def test_the_last_players_take_over_is_refused_without_leave_for_bot_games(policed: ServerProcess) -> None:
    created = Client(policed.target).create_game("pirates", SEATS, LONG)  # anyone: one player, three bots
    reply = Rest(policed.http, created.seat_tokens[0]).post(f"/v1/games/{created.game_id}:takeOver", {})
    assert reply.status == 403, reply.body
    game = Client(policed.target, ADMIN_TOKEN).get_game(created.game_id)
    assert game.status == game_pb2.GAME_STATUS_ACTIVE and not game.seats[0].taken_over_by
    by_admin = Rest(policed.http, ADMIN_TOKEN).post(f"/v1/games/{created.game_id}:takeOver", {"seat": 0})
    assert by_admin.status == 200 and by_admin.json["game"]["status"] == "GAME_STATUS_FINISHED"


@pytest.mark.slow
@pytest.mark.alone  # compares waits: other processes' load would make it meaningless
def test_other_players_are_served_while_a_take_over_plays_a_long_game_out(server: ServerProcess, volume: int) -> None:
    lobby = Client(server.target)
    victim_game = lobby.create_game("mooki", ["Ana", "Ben"]).game_id
    waits: list[float] = []
    done = threading.Event()
    with Client(server.target) as player:
        alone = []
        for _ in range(20):
            started = time.perf_counter()
            player.get_game(victim_game)
            alone.append(time.perf_counter() - started)
    quiet = statistics.median(alone)  # a victim's call with no chain running

    def victim() -> None:
        with Client(server.target) as player:
            while not done.is_set():
                started = time.perf_counter()
                player.get_game(victim_game)
                waits.append(time.perf_counter() - started)

    chains = []
    watcher = threading.Thread(target=victim)
    watcher.start()
    try:
        for _ in range(2 * volume):
            created = lobby.create_game("pirates", SEATS, LONG)
            started = time.perf_counter()
            reply = Rest(server.http, created.seat_tokens[0]).post(f"/v1/games/{created.game_id}:takeOver", {})
            chains.append(time.perf_counter() - started)
            assert reply.status == 200 and reply.json["game"]["status"] == "GAME_STATUS_FINISHED", reply.body
    finally:
        done.set()
        watcher.join()
    longest = max(chains)
    # A chain long enough to matter: many of the victim's quiet calls long (not a time,
    # which a fast machine would not reach: 0.12 s chains on a quiet one, 0.3 s on a busy one).
    assert longest > 20 * quiet, (chains, quiet)
    assert max(waits) < longest / 3, (max(waits), chains)  # nobody waited for a whole chain
