"""Real redis-server processes for tests, on random free ports, with the deployment's
own configuration (deploy/redis.conf: AOF, appendfsync always).

A test waits for Redis by polling a real condition with a bounded deadline (the ready
line in Redis's log, or CLUSTER INFO), never by sleeping a fixed time.

    redis_server            session fixture: one Redis for a whole test session
    redis_cluster           session fixture: one 3-master Redis Cluster
    running_redis()         a Redis of one's own (to stop and restart it)
    running_cluster()       a real Redis Cluster (3 masters; with replicas, to fail over)
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.crc import key_slot
from redis.retry import Retry

from tests.support.server import ROOT
from tests.support.waiting import wait_until

REDIS_CONF = ROOT / "deploy" / "redis.conf"
READY_LINE = "Ready to accept connections"
START_TIMEOUT = 30.0


def free_port(also_free: int = 0) -> int:
    """A TCP port nobody listens on (and `port + also_free` too, for a cluster's bus)."""
    for _ in range(100):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if not also_free:
            return port
        if port + also_free < 65536 and _is_free(port + also_free):
            return port
    raise RuntimeError("no free port found")


def _is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@dataclass
class RedisServer:
    """One redis-server process; stop() and start() it again on the same port and
    data directory (its AOF) to simulate an outage."""

    directory: Path
    port: int
    extra: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log_path(self) -> Path:
        return self.directory / "redis.log"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self) -> None:
        seen = len(self.log())
        self.process = subprocess.Popen(
            [
                "redis-server",
                str(REDIS_CONF),
                *("--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory)),
                *("--logfile", str(self.log_path), "--daemonize", "no"),
                *self.extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        process = self.process
        wait_until(
            lambda: READY_LINE in self.log()[seen:] or process.poll() is not None,
            START_TIMEOUT,
            f"redis-server on port {self.port}",
        )
        if process.poll() is not None:
            raise RuntimeError(f"redis-server did not start:\n{self.log()[seen:]}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """SIGTERM: a clean shutdown; SIGKILL: a crash (the AOF keeps every write)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(30)
        self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10)

    def command(self, *args: object) -> object:
        with self.client() as client:
            return client.execute_command(*args)


def start_redis(extra: list[str] | None = None) -> RedisServer:
    server = RedisServer(Path(tempfile.mkdtemp(prefix="ludotheque-redis-")), free_port(), extra or [])
    try:
        server.start()
    except BaseException:
        shutil.rmtree(server.directory, ignore_errors=True)
        raise
    return server


@contextmanager
def running_redis(extra: list[str] | None = None) -> Iterator[RedisServer]:
    server = start_redis(extra)
    try:
        yield server
    finally:
        server.stop(signal.SIGKILL)
        shutil.rmtree(server.directory, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One Redis for the whole session: tests keep apart by key prefix or game id."""
    with running_redis() as server:
        yield server


# Replicas authenticate to their primary as this user: deleting it on the primary cuts
# the replication link (and keeps it cut) while clients and the cluster bus carry on.
REPLICATION_USER = "replicator"
REPLICATION_PASSWORD = "replication-secret"


@dataclass
class RedisClusterNodes:
    nodes: list[RedisServer]

    @property
    def url(self) -> str:
        """The cluster by one of its live nodes."""
        return f"redis+cluster://127.0.0.1:{self.alive()[0].port}"

    def node(self, port: int) -> RedisServer:
        return next(node for node in self.nodes if node.port == port)

    def alive(self) -> list[RedisServer]:
        return [node for node in self.nodes if node.process is not None]

    def topology(self, via: RedisServer | None = None) -> dict[int, ClusterNode]:
        """Port -> what the cluster says of that node, as a live node (`via`) sees it."""
        listing = _bytes((via or self.alive()[0]).command("CLUSTER", "NODES")).decode()
        found: dict[int, ClusterNode] = {}
        for line in listing.splitlines():
            # <id> <ip:port@bus> <flags> <master> <ping-sent> <pong-recv> <epoch> <link> <slot>...
            fields = line.split(" ")
            node_id, address, flags, master_id, link, slots = *fields[:4], fields[7], fields[8:]
            port = int(address.split(":")[1].split("@")[0])
            found[port] = ClusterNode(node_id, port, set(flags.split(",")), master_id, link, slots)
        return found

    def master_of(self, key: str) -> RedisServer:
        """The node serving `key`'s slot now."""
        slot = key_slot(key.encode())
        for node in self.topology().values():
            if "master" in node.flags and "fail" not in node.flags and node.serves(slot):
                return self.node(node.port)
        raise AssertionError(f"no master serves slot {slot}")

    def replica_of(self, master: RedisServer) -> RedisServer:
        topology = self.topology()
        master_id = topology[master.port].node_id
        (replica,) = [n for n in topology.values() if n.master_id == master_id and "fail" not in n.flags]
        return self.node(replica.port)

    def cut_replication(self, master: RedisServer) -> None:
        """Cuts the link between `master` and its replicas, and keeps it cut: writes go
        on on the master and stop reaching the replicas (a lagging replica)."""
        master.command("ACL", "DELUSER", REPLICATION_USER)  # its replicas' connections die with it

    def wait_promoted(self, replica: RedisServer, timeout: float = 30.0) -> None:
        """Waits until `replica` has become a master and every live node says the cluster is ok."""
        wait_until(
            lambda: (
                "master" in self.topology()[replica.port].flags
                and all(b"cluster_state:ok" in _bytes(node.command("CLUSTER", "INFO")) for node in self.alive())
            ),
            timeout,
            f"node {replica.port} to be promoted",
        )

    def wait_replicating(self, replica: RedisServer, timeout: float = 30.0) -> None:
        """Waits until `replica` replicates from its master, online on both ends."""
        wait_until(lambda: in_sync(replica), timeout, f"node {replica.port} to replicate")


@dataclass(frozen=True)
class ClusterNode:
    node_id: str
    port: int
    flags: set[str]
    master_id: str
    link: str
    slots: list[str]

    def serves(self, slot: int) -> bool:
        for span in self.slots:
            if span.startswith("["):
                continue  # a slot being migrated
            first, _, last = span.partition("-")
            if int(first) <= slot <= int(last or first):
                return True
        return False


def in_sync(replica: RedisServer) -> bool:
    """Both ends agree: the replica's link is up and its master counts it online. WAIT
    counts only the replicas their master sees online, a moment after their link is up."""
    link = replica.command("INFO", "replication")
    if not isinstance(link, dict) or link.get("master_link_status") != "up":
        return False
    # One try, briefly: a master gone or frozen before its replica noticed is "not in sync
    # (yet)" within seconds, so that the caller's wait_until keeps its own deadline.
    once = Retry(NoBackoff(), 0)
    try:
        with redis.Redis(
            host=str(link["master_host"]), port=int(link["master_port"]), socket_timeout=2, retry=once
        ) as master:
            seen = master.execute_command("INFO", "replication")
    except (redis.ConnectionError, redis.TimeoutError):
        return False
    # redis-py parses each "slaveN:ip=..,port=..,state=.." line into a dict
    return any(
        isinstance(entry, dict) and int(entry.get("port", 0)) == replica.port and entry.get("state") == "online"
        for name, entry in seen.items()
        if name.startswith("slave")
    )


@contextmanager
def running_cluster(
    masters: int = 3,
    replicas: int = 0,
    node_timeout_ms: int = 5000,
    *,
    extra_replicas: Sequence[int] = (),
    options: Sequence[str] = (),
) -> Iterator[RedisClusterNodes]:
    """A real Redis Cluster of `masters` primaries, each with `replicas` replicas, and
    `extra_replicas[i]` more for the i-th master (the one serving the i-th range of
    slots). A short `node_timeout_ms` makes failures detected, and replicas promoted,
    quickly. `options`: more of redis-server's, for every node."""
    nodes: list[RedisServer] = []
    added = sum(extra_replicas)
    options = [
        *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
        *("--cluster-node-timeout", str(node_timeout_ms)),
        *options,
    ]
    if replicas or added:
        options += [
            *("--user", REPLICATION_USER, "on", f">{REPLICATION_PASSWORD}", "~*", "&*", "+@all"),
            *("--masteruser", REPLICATION_USER, "--masterauth", REPLICATION_PASSWORD),
            *("--repl-diskless-sync-delay", "0"),  # a replica (re)joining syncs at once
        ]
    try:
        for _ in range(masters * (1 + replicas)):
            directory = Path(tempfile.mkdtemp(prefix="ludotheque-redis-cluster-"))
            node = RedisServer(directory, free_port(also_free=10000), options)  # the bus listens on port + 10000
            nodes.append(node)
            node.start()
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(f"127.0.0.1:{node.port}" for node in nodes),
                "--cluster-replicas",
                str(replicas),
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        cluster = RedisClusterNodes(nodes)
        for node in nodes:
            wait_until(
                lambda node=node: b"cluster_state:ok" in _bytes(node.command("CLUSTER", "INFO")),  # type: ignore[misc]
                START_TIMEOUT,
                f"the cluster to be ready on port {node.port}",
            )
        _add_replicas(cluster, extra_replicas, options)
        if replicas or added:

            def replicas_known() -> list[int]:
                return [n.port for n in cluster.topology().values() if "slave" in n.flags]

            expected = masters * replicas + added
            wait_until(lambda: len(replicas_known()) == expected, START_TIMEOUT, "the replicas to be known")
            for port in replicas_known():
                cluster.wait_replicating(cluster.node(port))
        yield cluster
    finally:
        for node in nodes:
            node.stop(signal.SIGKILL)
            shutil.rmtree(node.directory, ignore_errors=True)


def _add_replicas(cluster: RedisClusterNodes, extra: Sequence[int], options: list[str]) -> None:
    """Adds `extra[i]` replicas to the master of the i-th range of slots."""
    first = cluster.nodes[0]

    def masters_known() -> list[ClusterNode]:
        return [node for node in cluster.topology().values() if "master" in node.flags]

    # The first node learns the others' slots by gossip: on a busy machine, a while after the cluster forms.
    wait_until(lambda: all(node.slots for node in masters_known()), START_TIMEOUT, "every master's slots to be known")
    masters = sorted(
        masters_known(),
        key=lambda node: min(int(span.partition("-")[0]) for span in node.slots if not span.startswith("[")),
    )
    for master, count in zip(masters, extra, strict=False):
        for _ in range(count):
            node = RedisServer(Path(tempfile.mkdtemp(prefix="ludotheque-redis-cluster-")), free_port(10000), options)
            cluster.nodes.append(node)
            node.start()
            subprocess.run(
                [
                    *("redis-cli", "--cluster", "add-node", f"127.0.0.1:{node.port}", f"127.0.0.1:{first.port}"),
                    *("--cluster-slave", "--cluster-master-id", master.node_id),
                ],
                check=True,
                capture_output=True,
                timeout=60,
            )


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterNodes]:
    """One 3-master Redis Cluster for the whole session."""
    with running_cluster() as cluster:
        yield cluster


def _bytes(value: object) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()
