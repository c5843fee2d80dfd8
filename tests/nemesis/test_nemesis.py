"""The nemesis, Jepsen-style: a seeded random schedule of faults (faults.py) over a real
Redis Cluster (3 masters: without WAIT one with one replica, two with two; with WAIT 1,
one replica each) and two server processes, under load from real clients that log
every acknowledgement (players.py); then the checker (checker.py) over the clients'
logs and the final store.

- Without WAIT: no acknowledged version is ever used again for another move, and every
  loss is recorded (its versions hold placeholders).
- With WAIT 1 (as many as each master's replicas), at most one failure per shard at a
  time: no acknowledged move is lost.
- In both: no command applied twice, no client ever answered INTERNAL, no server log
  line saying the Redis client failed unexpectedly, and every player plays again within
  seconds of the cluster healing.

CI runs a short schedule of a fixed seed; `pytest tests/nemesis --nemesis-minutes 10`
runs ten minutes of faults per configuration (`--nemesis-seed` another schedule). Each
run prints its figures (pytest -s)."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from ludotheque import Client
from ludotheque.v1 import game_pb2

from tests.nemesis.checker import Ack, check
from tests.nemesis.faults import Nemesis, ServerPool, schedule
from tests.nemesis.players import Player, Servers, read_logs
from tests.support.redis import RedisClusterNodes, running_cluster
from tests.support.server import ADMIN_TOKEN, ServerProcess, start_server
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.alone]

CI_SECONDS = 14.0  # of faults, per configuration, in CI
NODE_TIMEOUT_MS = 1000  # failures noticed and replicas promoted within a few seconds
PLAYERS = 8
PLAYABLE_WITHIN = 10.0  # seconds after the cluster healed by which every player has played again


@contextmanager
def nemesis_cluster(waits: int) -> Iterator[RedisClusterNodes]:
    """Without WAIT: one master with one replica, two with two. With WAIT 1: one replica
    each, which cannot migrate: as many as WAIT waits for (with more, a failover may
    promote the replica that did not confirm a write, or a master frozen past its
    failover may get a write confirmed by its other replica on its way to the new master:
    docs/DURABILITY.md, "WAIT, per shard")."""
    options = ["--cluster-require-full-coverage", "no"]  # a shard without a master stops no other
    if waits:
        options += ["--cluster-allow-replica-migration", "no"]
    extra = () if waits else (0, 1, 1)
    with running_cluster(3, 1, NODE_TIMEOUT_MS, extra_replicas=extra, options=options) as nodes:
        yield nodes


@pytest.mark.parametrize("waits", [0, 1], ids=["wait0", "wait1"])
def test_the_nemesis_forks_nothing_and_with_wait_loses_nothing(
    waits: int, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    with nemesis_cluster(waits) as cluster:
        run_the_nemesis(cluster, waits, request, tmp_path)


def run_the_nemesis(cluster: RedisClusterNodes, waits: int, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    minutes = float(request.config.getoption("--nemesis-minutes"))
    seed = int(request.config.getoption("--nemesis-seed")) + waits
    faults = schedule(seed, minutes * 60 or CI_SECONDS, waits=bool(waits))
    env = {"LUDOTHEQUE_REDIS_WAIT_REPLICAS": str(waits), "LUDOTHEQUE_REDIS_WAIT_TIMEOUT": "1"}
    started: list[ServerProcess] = []

    def start(url: str) -> tuple[str, Callable[[], None], Callable[[], str]]:
        server = start_server(env={**env, "LUDOTHEQUE_STORE": url})
        started.append(server)

        def kill() -> None:
            server.stop(signal.SIGKILL, 10)

        return server.target, kill, server.log

    pool = ServerPool(start)
    try:
        pool.open(cluster.url)
        servers = Servers(pool.targets)
        nemesis = Nemesis(cluster, pool, servers.moved, waits=bool(waits))
        stop = threading.Event()
        players = [Player(n, servers, tmp_path / f"player-{n}.jsonl", stop, seed * 1000 + n) for n in range(PLAYERS)]
        for player in players:
            player.start()
        wait_until(lambda: sum(p.acknowledged for p in players) >= 4 * PLAYERS, 60, "the players to start")
        began = time.monotonic()
        nemesis.run(faults, threading.Event())
        healed = nemesis.heal()
        faulted = healed - began
        wait_until(lambda: all(p.last_ack > healed for p in players), PLAYABLE_WITHIN, "every player to play again")
        stop.set()
        for player in players:
            player.join(30)
        for player in players:  # each comes back to the games it played, finished ones too
            player.come_back()
            player.close()
        created, acks, lines = read_logs([tmp_path / f"player-{n}.jsonl" for n in range(PLAYERS)])
        again = max(
            min(line["t"] for line in lines if line["player"] == p.number and line["t"] > healed) for p in players
        )
        histories = final_histories(servers.target(0), created)
        logs = pool.all_logs()
    finally:
        for server in started:
            if server.process.poll() is None:
                server.stop(signal.SIGKILL, 10)
            server.log_path.unlink(missing_ok=True)

    report = check(created, acks, histories)
    refusals = Counter(line["code"] for line in lines if line["kind"] == "lost")
    print(
        f"\nnemesis, WAIT {waits}, seed {seed}: {faulted:.0f} s of faults, {sum(nemesis.applied.values())} applied "
        f"{dict(nemesis.applied)} ({sum(nemesis.skipped.values())} skipped: {dict(nemesis.skipped)}); "
        f"{report.moves} moves acknowledged on {report.games} games ({report.acknowledged_versions} versions); "
        f"{report.losses} losses recorded, {report.lost_versions} acknowledged versions lost (all recorded), "
        f"{len(report.lost_games)} games lost {dict(refusals)}; forks {len(report.forks)}, "
        f"unrecorded {len(report.unrecorded)}, applied twice {len(report.duplicates)}; "
        f"every player played again {again - healed:.1f} s after the cluster healed"
    )
    print("\n".join(nemesis.log))
    violations = report.violations(bool(waits))
    if violations:
        told = diagnose(tmp_path, violations, lines, logs).read_text()
        print(f"what the players and servers said of those games:\n{_lines_with(told, '', limit=40_000)}")
    assert not violations, violations[:20]
    assert not [error for player in players for error in player.errors]
    unexpected = _lines_with(logs, "Traceback", "failed unexpectedly", limit=4000)
    assert not unexpected, unexpected
    assert report.moves > 10 * PLAYERS


def final_histories(target: str, games: list[str]) -> dict[str, list[game_pb2.Event] | None]:
    """Every game's events as the store has them now (None: it has no such game)."""
    found: dict[str, list[game_pb2.Event] | None] = {}
    with Client(target, ADMIN_TOKEN, retries=0, timeout=10) as admin:
        for game_id in games:
            deadline = time.monotonic() + 30
            while True:
                try:
                    found[game_id] = admin.history(game_id)
                    break
                except grpc.RpcError as error:
                    if error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.DATA_LOSS):
                        found[game_id] = None
                        break
                    if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                        raise
    return found


def diagnose(directory: Path, violations: list[str], lines: list[dict[str, object]], logs: str) -> Path:
    """Writes, for each game a violation names, what its players logged and every
    server log line naming it; returns the file."""
    path = directory / "diagnosis.txt"
    with path.open("w") as out:
        for game_id in sorted({v.split(":")[0].removeprefix("game ") for v in violations if v.startswith("game ")}):
            out.write(f"== game {game_id}\n")
            out.writelines(json.dumps(line) + "\n" for line in lines if line.get("game") == game_id)
            said = [
                line for line in _lines_with(logs, game_id).splitlines() if " OK " not in line
            ]  # not the calls answered
            out.write("\n".join(said) + "\n")
    return path


def _lines_with(text: str, *words: str, limit: int = 100_000) -> str:
    return "\n".join(line for line in text.splitlines() if any(word in line for word in words))[:limit]


# --- the checker itself -------------------------------------------------------------------


def _event(version: int, command_id: str, *, loss: tuple[int, int, bool] | None = None) -> game_pb2.Event:
    event = game_pb2.Event(version=version, command_id=command_id)
    if loss is not None:
        event.history_loss.CopyFrom(game_pb2.HistoryLoss(first=loss[0], last=loss[1], reused=loss[2]))
    else:
        event.command.SetInParent()
    return event


def test_the_checker_tells_a_recorded_loss_from_a_fork_an_unrecorded_loss_and_a_move_played_twice() -> None:
    acks = [Ack("g", "a", ((1, "a"),)), Ack("g", "b", ((2, "b"),)), Ack("g", "c", ((3, "c"),))]
    recorded = [_event(1, "a"), _event(2, "", loss=(2, 3, False)), _event(3, "", loss=(2, 3, False))]
    recorded.append(_event(4, "", loss=(2, 3, False)))  # the notice
    fine = check(["g"], acks, {"g": recorded})
    assert not fine.violations(waits=False) and fine.lost_versions == 2 and fine.losses == 1
    assert fine.violations(waits=True)  # with WAIT, a loss at all is one
    forked = check(["g"], acks, {"g": [_event(1, "a"), _event(2, "x"), _event(3, "c")]})
    assert forked.forks and forked.violations(waits=False)
    unrecorded = check(["g"], acks, {"g": [_event(1, "a")]})
    assert len(unrecorded.unrecorded) == 2
    twice = check(["g"], acks[:1], {"g": [_event(1, "a"), _event(2, "a")]})
    assert twice.duplicates
    told_twice = check(
        ["g"], [*acks, Ack("g", "d", ((3, "d"),))], {"g": [_event(1, "a"), _event(2, "b"), _event(3, "c")]}
    )
    assert told_twice.forks
    lost_game = check(["g", "h"], acks, {"g": [_event(1, "a"), _event(2, "b"), _event(3, "c")], "h": None})
    assert not lost_game.violations(waits=False) and lost_game.violations(waits=True)
