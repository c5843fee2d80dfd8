"""Full games of every game kind the server plays, through a real 3-master Redis
Cluster: a game's keys share one slot, the listing index lives in another, live
events are read per slot."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import pytest
from ludotheque import Client
from ludotheque.v1 import game_pb2

from engines.registry import ENGINES
from tests.support.games import assert_replays_cleanly, next_move, play_move, seats, short_game
from tests.support.redis import RedisClusterNodes
from tests.support.server import ServerProcess, watched_server
from tests.support.stores import PATIENT_REDIS

KINDS = sorted(ENGINES)


@pytest.fixture(scope="module")
def cluster_server(redis_cluster: RedisClusterNodes) -> Iterator[ServerProcess]:
    with watched_server(env={"LUDOTHEQUE_STORE": redis_cluster.url, **PATIENT_REDIS}) as server:
        yield server


def listed(client: Client, kind: str) -> set[str]:
    page = client.list_games(kind=kind, status=game_pb2.GAME_STATUS_FINISHED, page_size=500)
    return {game.game_id for game in page.games}


@pytest.mark.parametrize("kind", KINDS)
def test_a_game_of_bots_plays_to_its_end_through_the_cluster(cluster_server: ServerProcess, kind: str) -> None:
    with Client(cluster_server.target) as lobby:
        # The server plays every seat at once; listed: everyone finds it in ListGames.
        created = lobby.create_game(kind, seats(kind), short_game(kind), visibility=game_pb2.VISIBILITY_LISTED)
        assert created.game.status == game_pb2.GAME_STATUS_FINISHED
        events = assert_replays_cleanly(cluster_server.target, created.game_id)
        watched = list(lobby.stream(created.game_id))  # a finished game streams its past, then ends
        assert [e.version for e in watched] == [e.version for e in lobby.history(created.game_id)]
        assert watched[-1].version == events[-1].version and watched[-1].game_over
        assert created.game_id in listed(lobby, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_a_player_plays_a_game_to_its_end_through_the_cluster_while_a_spectator_follows(
    cluster_server: ServerProcess, kind: str
) -> None:
    with Client(cluster_server.target) as lobby:
        created = lobby.create_game(
            kind, seats(kind, humans=1), short_game(kind), visibility=game_pb2.VISIBILITY_LISTED
        )
        game_id, tokens = created.game_id, list(created.seat_tokens[:1])
        watched: list[game_pb2.Event] = []
        spectator = threading.Thread(target=lambda: watched.extend(lobby.stream(game_id)), daemon=True)
        spectator.start()
        rng = random.Random(kind)
        moves = 0
        while (move := next_move(lobby, game_id, tokens, rng)) is not None:
            play_move(lobby, move, tokens)
            moves += 1
        spectator.join(60)
        assert not spectator.is_alive(), "the live stream must end with the game"
        events = assert_replays_cleanly(cluster_server.target, game_id)
        assert moves > 0 and watched == lobby.history(game_id)
        assert watched[-1].version == events[-1].version
        assert game_id in listed(lobby, kind)
