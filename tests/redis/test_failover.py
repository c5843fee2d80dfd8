"""Redis Cluster failovers, for real: 3 masters with a replica each, a master killed
with SIGKILL, its replica promoted. What docs/DURABILITY.md claims of a failover is
proved here, and each test prints the figures of its run (pytest -s shows them).

A *lagging* failover is made by cutting the replication link of a master (its
replicas' user is deleted on it) before killing it: the writes acknowledged since are
on the dead master only, and the promoted replica never had them."""

from __future__ import annotations

import contextlib
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ludotheque import Client
from ludotheque.client import error_status
from ludotheque.v1 import game_pb2

from tests.support.games import Move, history, next_move, play_move, seats
from tests.support.load import Load
from tests.support.redis import RedisClusterNodes, running_cluster
from tests.support.rest import Rest
from tests.support.server import ServerProcess, running_server
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.alone]

T = TypeVar("T")
NODE_TIMEOUT_MS = 1000  # failures detected and replicas promoted within a few seconds


@pytest.fixture
def cluster() -> Iterator[RedisClusterNodes]:
    with running_cluster(masters=3, replicas=1, node_timeout_ms=NODE_TIMEOUT_MS) as nodes:
        yield nodes


def until_available(call: Callable[[], T], timeout: float = 30.0, refused: list[float] | None = None) -> T:
    """`call` retried while it fails with UNAVAILABLE (the shard fails over meanwhile);
    the times it was refused are added to `refused`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            if refused is not None:
                refused.append(time.monotonic())
            time.sleep(0.05)


def error_reason(error: grpc.RpcError) -> str:
    status = error_status(error)
    assert status is not None, error
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""


def games_on(cluster: RedisClusterNodes, game_ids: list[str]) -> dict[int, list[str]]:
    """Game ids by the port of the master serving them."""
    by_master: dict[int, list[str]] = {}
    for game_id in game_ids:
        by_master.setdefault(cluster.master_of(f"ludo:{{{game_id}}}:meta").port, []).append(game_id)
    return by_master


def play(client: Client, game_id: str, tokens: list[str], rng: random.Random, moves: int) -> list[tuple[Move, int]]:
    """Plays `moves` moves of a game; each with the version its acknowledgement named."""
    played = []
    for _ in range(moves):
        move = next_move(client, game_id, tokens, rng)
        if move is None:
            break
        played.append((move, play_move(client, move, tokens)))
    return played


def metric(server: ServerProcess, name: str) -> float:
    text = Rest(server.http).get("/metrics").body.decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))


def test_a_lagging_failover_is_noticed_and_the_game_goes_on_without_reusing_a_lost_version(
    cluster: RedisClusterNodes,
) -> None:
    """WAIT 0: the moves acknowledged while the replica lagged are lost with the master;
    the server notices on its next call, records which versions were lost (they are
    never used again), tells a client that names one, and the game goes on."""
    with running_server(env={"LUDOTHEQUE_STORE": cluster.url}) as server:
        client = Client(server.target, retries=0, timeout=5)
        created = [client.create_game("mooki", seats("mooki", humans=2)) for _ in range(6)]
        tokens = {game.game_id: list(game.seat_tokens) for game in created}
        doomed_port, game_ids = max(games_on(cluster, list(tokens)).items(), key=lambda item: len(item[1]))
        doomed = cluster.node(doomed_port)
        replica = cluster.replica_of(doomed)
        rng = random.Random(1)
        for game_id in game_ids:
            play(client, game_id, tokens[game_id], rng, 3)
        before_cut = {game_id: client.get_game(game_id).version for game_id in game_ids}
        cluster.cut_replication(doomed)
        acknowledged = {game_id: play(client, game_id, tokens[game_id], rng, 4) for game_id in game_ids}
        lost_moves = {game_id: [move.command_id for move, _ in moves] for game_id, moves in acknowledged.items()}
        killed = time.monotonic()
        doomed.stop(signal.SIGKILL)
        cluster.wait_promoted(replica)
        promoted = time.monotonic() - killed
        # No one calls: the server sees the masters change and checks the games it holds.
        wait_until(
            lambda: metric(server, "ludotheque_history_losses_total") == len(game_ids),
            15,
            "the server to record the losses by itself",
        )
        recorded = time.monotonic() - killed

        game_id = game_ids[0]
        last_acknowledged = acknowledged[game_id][-1][1]
        # The store is the truth: the next move is decided on what the store has, and
        # is stored after the lost versions, not over them.
        move = until_available(lambda: next_move(client, game_id, tokens[game_id], rng))
        assert move is not None
        moving_again = time.monotonic() - killed
        assert play_move(client, move, tokens[game_id]) > last_acknowledged + 1
        game = client.get_game(game_id)
        (loss,) = game.history_losses
        assert loss.last == last_acknowledged and not loss.reused
        assert loss.first <= before_cut[game_id] + 1  # at least the moves since the cut
        # A client that names a lost version is told so.
        with pytest.raises(grpc.RpcError) as refused:
            client.with_token(tokens[game_id][move.seat]).submit(
                game_id, move.command, expected_version=last_acknowledged
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert error_reason(refused.value) == "VERSIONS_LOST"
        assert f"{loss.first}" in refused.value.details() and f"{loss.last}" in refused.value.details()

        # Every game of the lost shard: the lost versions hold placeholders, never other moves.
        for game_id in game_ids:
            until_available(lambda game_id=game_id: client.get_game(game_id))  # type: ignore[misc]
            events = history(server.target, game_id)
            assert [e.version for e in events] == list(range(1, len(events) + 1))
            game = client.get_game(game_id)
            (loss,) = game.history_losses
            lost = [e for e in events if loss.first <= e.version <= loss.last]
            assert all(e.HasField("history_loss") and not e.HasField("command") for e in lost), game_id
            notice = events[loss.last]  # version last + 1 says what was lost, to followers too
            assert notice.history_loss.first == loss.first and notice.history_loss.last == loss.last
            stored_ids = {e.command_id for e in events if e.HasField("command")}
            assert not stored_ids & set(lost_moves[game_id][-1:]), "a lost move cannot still be stored"
        assert metric(server, "ludotheque_history_losses_total") == len(game_ids)
        assert "versions" in server.log() and "lost" in server.log()
        print(
            f"\nlagging failover, WAIT 0: {sum(len(m) for m in acknowledged.values())} moves acknowledged "
            f"after the cut on {len(game_ids)} games; replica promoted {promoted:.1f} s after the kill; "
            f"the losses recorded {recorded:.1f} s after it, with no call; the first game moved again "
            f"{moving_again:.1f} s after it"
        )

    # Another server, started afresh, sees the same history and goes on from it.
    with running_server(env={"LUDOTHEQUE_STORE": cluster.url}) as fresh:
        client = Client(fresh.target, retries=0, timeout=5)
        before = history(fresh.target, game_ids[0])
        move = next_move(client, game_ids[0], tokens[game_ids[0]], rng)
        assert move is not None
        assert play_move(client, move, tokens[game_ids[0]]) > before[-1].version
        assert history(fresh.target, game_ids[0])[: len(before)] == before


def test_a_game_whose_creation_was_lost_with_its_master_answers_data_loss(cluster: RedisClusterNodes) -> None:
    """WAIT 0: a game created (and acknowledged) while its master's replica lagged is
    lost with the master. Its players are told so (DATA_LOSS, GAME_LOST), not that
    there is no such game: the listing index, on another shard, still files it."""
    index = cluster.master_of("ludo:index:{index}:games")
    masters = [cluster.node(port) for port, node in cluster.topology().items() if "master" in node.flags]
    doomed = next(node for node in masters if node.port != index.port)
    replica = cluster.replica_of(doomed)
    with running_server(env={"LUDOTHEQUE_STORE": cluster.url}) as server:
        client = Client(server.target, retries=0, timeout=5)
        cluster.cut_replication(doomed)
        lost = next(
            game
            for game in iter(lambda: client.create_game("mooki", seats("mooki", humans=2)), None)
            if cluster.master_of(f"ludo:{{{game.game_id}}}:meta") == doomed
        )
        player = client.with_token(lost.seat_tokens[lost.game.to_act[0]])
        command = player.get_game(lost.game_id).legal_commands[0]
        doomed.stop(signal.SIGKILL)
        cluster.wait_promoted(replica)
        with pytest.raises(grpc.RpcError) as told:
            until_available(lambda: player.get_game(lost.game_id))
        assert told.value.code() == grpc.StatusCode.DATA_LOSS, told.value
        assert error_reason(told.value) == "GAME_LOST" and "lost" in told.value.details()
        with pytest.raises(grpc.RpcError) as playing:
            player.submit(lost.game_id, command)
        assert playing.value.code() == grpc.StatusCode.DATA_LOSS
        with pytest.raises(grpc.RpcError) as never:
            client.get_game("no-such-game")
        assert never.value.code() == grpc.StatusCode.NOT_FOUND  # a game never created is still not found


def test_with_wait_a_move_the_replicas_did_not_confirm_is_never_shown_and_its_retry_counts_once(
    cluster: RedisClusterNodes,
) -> None:
    """WAIT 1: a move whose replica never confirmed it answers UNAVAILABLE and stays
    invisible (so a failover that loses it forks nothing); once the shard has a replica
    again, its retry (same command id) is played exactly once."""
    env = {
        "LUDOTHEQUE_STORE": cluster.url,
        "LUDOTHEQUE_REDIS_WAIT_REPLICAS": "1",
        "LUDOTHEQUE_REDIS_WAIT_TIMEOUT": "0.5",
    }
    with running_server(env=env) as server:
        client = Client(server.target, retries=0, timeout=5)
        created = client.create_game("mooki", seats("mooki", humans=2))
        game_id, tokens = created.game_id, list(created.seat_tokens)
        rng = random.Random(2)
        play(client, game_id, tokens, rng, 2)
        doomed = cluster.master_of(f"ludo:{{{game_id}}}:meta")
        replica = cluster.replica_of(doomed)
        before = client.get_game(game_id).version
        watched: list[game_pb2.Event] = []  # a spectator following the game live

        def follow() -> None:
            with contextlib.suppress(grpc.RpcError):  # the stream ends with the server
                watched.extend(client.stream(game_id, before + 1))

        threading.Thread(target=follow, daemon=True).start()
        cluster.cut_replication(doomed)
        move = next_move(client, game_id, tokens, rng)
        assert move is not None
        with pytest.raises(grpc.RpcError) as unconfirmed:
            play_move(client, move, tokens)
        assert unconfirmed.value.code() == grpc.StatusCode.UNAVAILABLE
        assert client.get_game(game_id).version == before  # the primary has it; nobody is shown it
        assert client.list_events(game_id, from_version=before + 1).events == []
        assert client.replay(game_id).version == before
        assert watched == []

        def created_elsewhere() -> Any:
            """A game another shard holds (one created on the doomed shard cannot be confirmed)."""
            while True:
                try:
                    game = client.create_game("mooki", seats("mooki", humans=2))
                except grpc.RpcError as refused:
                    assert refused.code() == grpc.StatusCode.UNAVAILABLE, refused
                    continue
                if cluster.master_of(f"ludo:{{{game.game_id}}}:meta") != doomed:
                    return game

        elsewhere = created_elsewhere()
        doomed.stop(signal.SIGKILL)
        cluster.wait_promoted(replica)
        # A shard that cannot confirm writes (its only replica is gone) is named by
        # readiness, which holds (the other shards serve): this pod stays in its Service.
        shard = f"127.0.0.1:{replica.port}"

        def degraded() -> bool:
            answer = Rest(server.http).get("/readyz")
            return answer.status == 200 and shard in answer.json.get("degraded", "")

        wait_until(degraded, 10, "readiness to name the shard")
        assert metric(server, f'ludotheque_store_shard_writable{{shard="{shard}"}}') == 0
        with grpc.insecure_channel(server.target) as channel:
            check = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert check.status == health_pb2.HealthCheckResponse.SERVING
        asked = time.monotonic()
        assert Rest(server.http).get("/readyz").status == 200 and time.monotonic() - asked < 0.2
        # Its games' moves answer UNAVAILABLE, naming it; the other shards' games move on.
        with pytest.raises(grpc.RpcError) as refused:
            play_move(client, move, tokens)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE and shard in refused.value.details()
        other = next_move(client, elsewhere.game_id, list(elsewhere.seat_tokens), rng)
        assert other is not None and play_move(client, other, list(elsewhere.seat_tokens)) >= 2
        doomed.start()  # it comes back as the replica of the promoted node
        cluster.wait_replicating(doomed)
        ready = time.monotonic()
        version = until_available(lambda: play_move(client, move, tokens))
        writable_again = time.monotonic() - ready
        events = history(server.target, game_id)
        assert [e.command_id for e in events if e.HasField("command")].count(move.command_id) == 1
        assert version == before + len([e for e in events if e.version > before and e.command_id == move.command_id])
        wait_until(lambda: len(watched) >= version - before, 10, "the spectator to see the move")
        assert watched[0].version == before + 1 and watched[0].command_id == move.command_id
        assert not client.get_game(game_id).history_losses  # nothing acknowledged was lost
        assert writable_again < 2.0, writable_again
        wait_until(lambda: "degraded" not in Rest(server.http).get("/readyz").json, 10, "every shard to serve")
        print(f"\nWAIT 1 failover: writes on the shard went through {writable_again:.2f} s after its replica was back")


def test_with_wait_1_and_two_replicas_a_failover_under_load_loses_no_acknowledged_move_and_writes_go_on() -> None:
    """WAIT 1, two replicas per master: a master killed under load. Every acknowledged
    move is in its game's history exactly once, nothing is recorded lost, and the
    shard takes writes again as soon as a replica is promoted (the other replica
    follows it and confirms writes) without the dead master coming back."""
    with running_cluster(masters=3, replicas=2, node_timeout_ms=NODE_TIMEOUT_MS) as cluster:
        env = {
            "LUDOTHEQUE_STORE": cluster.url,
            "LUDOTHEQUE_REDIS_WAIT_REPLICAS": "1",
            "LUDOTHEQUE_REDIS_WAIT_TIMEOUT": "1",
        }
        with running_server(env=env) as server:
            client = Client(server.target, retries=0, timeout=5)
            load = Load(client, games=6)
            doomed = cluster.node(max(games_on(cluster, list(load.tokens)).items(), key=lambda i: len(i[1]))[0])
            refused: list[float] = []

            def play_game(game_id: str, moves: int) -> None:
                rng = random.Random(game_id)
                tokens = load.tokens[game_id]
                for _ in range(moves):
                    # A read refused counts too: a player may be reading when the master dies.
                    move = until_available(lambda: next_move(client, game_id, tokens, rng), refused=refused)
                    if move is None:
                        return
                    while True:  # the same command id until it is acknowledged
                        try:
                            play_move(client, move, tokens)
                            break
                        except grpc.RpcError as error:
                            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                            refused.append(time.monotonic())
                            time.sleep(0.05)
                    load.acknowledge(game_id, move.command_id)

            players = load.run(60, play_game)
            load.wait_for(30)
            killed = time.monotonic()
            doomed.stop(signal.SIGKILL)
            players.join(120)
            assert not players.is_alive()
            assert load.failure is None, load.failure  # a player's own failure first: it would stop its moves
            assert refused, "the kill stopped no call: it came too late to test anything"
            load.check(server.target)
            for game_id in load.tokens:
                assert not client.get_game(game_id).history_losses
            outage = (max(refused) - killed) if refused else 0.0
            print(
                f"\nWAIT 1, two replicas: {load.count} moves acknowledged, none lost; {len(refused)} refusals "
                f"(UNAVAILABLE, retried), the last {outage:.1f} s after the kill"
            )
