"""The nemesis's faults: a seeded random schedule of them, and its execution against a
real Redis Cluster and real server processes.

The cluster has 3 masters (shards: the three ranges of slots `redis-cli --cluster
create` makes), with one or two replicas each. A fault is one of:

    kill-master, kill-replica    kill -9 of the node; restarted `hold` seconds later
                                 (as an orchestrator would), on its data
    pause-master, pause-replica  SIGSTOP for `hold` seconds, then SIGCONT (longer than
                                 cluster-node-timeout: the cluster fails the node over)
    lagging-failover             (without WAIT) the master cut from its replicas (their
                                 link broken), killed 1.5 s later: a replica is promoted
                                 without the writes of those 1.5 s
    kill-server                  kill -9 of a server process; restarted `hold` s later
    restart-node                 a clean restart of one node (SIGTERM, start), once

The schedule is drawn from the seed alone (kinds, times, shards, holds); which node a
fault hits is found when it happens (the master of its shard then). With WAIT ("at most
one failure per shard"), a node fault only hits a shard whose nodes are all up and in
step, and lagging failovers (two failures at once) are left out."""

from __future__ import annotations

import heapq
import itertools
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support.redis import ClusterNode, RedisClusterNodes, RedisServer, in_sync
from tests.support.waiting import wait_until

SHARD_SLOTS = (0, 5461, 10923)  # a slot of each shard's range
NODE_KINDS = ("kill-master", "kill-replica", "pause-master", "pause-replica")
LAGGING = "lagging-failover"
LAG = 1.5  # seconds a lagging failover's replicas are frozen before their master dies
LAGGING_DOWN = 4.0  # seconds, at least, the master of a lagging failover stays down
LAGGING_QUIET = 3.0  # seconds after its master is killed before the next fault (its failover: ~2.5 s)


@dataclass(frozen=True, slots=True)
class Fault:
    at: float  # seconds into the run
    kind: str
    target: int  # the shard (0, 1, 2), or the server's index
    hold: float  # seconds the node (or server) stays down or frozen


def schedule(seed: int, seconds: float, *, waits: bool, servers: int = 2) -> list[Fault]:
    """The faults of a run: every kind early on (the restart once), then random ones,
    about 1.5 s apart, until `seconds`."""
    rng = random.Random(seed)
    kinds = [*NODE_KINDS, "kill-server"] + ([] if waits else [LAGGING])
    early = [*(kind for kind in kinds if kind != LAGGING), "restart-node"]
    rng.shuffle(early)
    if not waits:  # first, in a quiet cluster: a replica is promoted only while most masters are up
        early.append(LAGGING)
    faults: list[Fault] = []
    at = 1.0
    while at < seconds:
        kind = early.pop() if early else rng.choice(kinds)
        target = rng.randrange(servers) if kind == "kill-server" else rng.randrange(len(SHARD_SLOTS))
        hold = {"kill-server": rng.uniform(0.5, 2.0), "restart-node": 0.0}.get(kind) or (
            rng.uniform(0.5, 3.0) if kind.startswith("pause") else rng.uniform(2.0, 5.0)
        )
        faults.append(Fault(round(at, 2), kind, target, round(hold, 2)))
        # A lagging failover needs a majority of masters up to promote a replica: room for it.
        at += LAG + LAGGING_QUIET if kind == LAGGING else rng.uniform(0.8, 2.2)
    return faults


@dataclass
class ServerPool:
    """The server processes: killed and started again (on new ports) by the nemesis."""

    start: Callable[[str], tuple[str, Callable[[], None], Callable[[], str]]]  # url -> target, kill, log
    count: int = 2
    targets: list[str] = field(default_factory=list)
    kills: list[Callable[[], None] | None] = field(default_factory=list)
    logs: list[Callable[[], str]] = field(default_factory=list)
    old_logs: list[str] = field(default_factory=list)  # of processes killed

    def open(self, url: str) -> None:
        for _ in range(self.count):
            target, kill, log = self.start(url)
            self.targets.append(target)
            self.kills.append(kill)
            self.logs.append(log)

    def kill(self, index: int) -> bool:
        kill = self.kills[index]
        if kill is None:
            return False
        kill()
        self.old_logs.append(self.logs[index]())
        self.kills[index] = None
        return True

    def restart(self, index: int, url: str) -> str:
        target, kill, log = self.start(url)
        self.targets[index], self.kills[index], self.logs[index] = target, kill, log
        return target

    def all_logs(self) -> str:
        return "\n".join([*self.old_logs, *(log() for log in self.logs)])


class Nemesis:
    def __init__(
        self,
        cluster: RedisClusterNodes,
        servers: ServerPool,
        on_server: Callable[[int, str], None],
        *,
        waits: bool,
    ) -> None:
        self.cluster = cluster
        self.servers = servers
        self._on_server = on_server  # a server restarted: its index and new target
        self.waits = waits
        self.frozen: set[int] = set()  # ports of nodes SIGSTOPped
        self.down: set[int] = set()  # ports of nodes killed
        self.dead_servers: set[int] = set()
        self.applied: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()
        self.log: list[str] = []
        self._due: list[tuple[float, int, Callable[[], None]]] = []  # recoveries (time, order, action)
        self._order = itertools.count()
        self._start = time.monotonic()

    # --- the cluster as it is now ---------------------------------------------------------

    def responsive(self) -> list[RedisServer]:
        return [n for n in self.cluster.nodes if n.process is not None and n.port not in self.frozen | self.down]

    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.responsive()[0].port}"

    def topology(self) -> dict[int, ClusterNode]:
        for node in self.responsive():
            try:
                return self.cluster.topology(via=node)
            except Exception:  # a node dying meanwhile: ask another
                continue
        raise AssertionError("no Redis node answers")

    def master(self, shard: int, topology: dict[int, ClusterNode]) -> ClusterNode | None:
        slot = SHARD_SLOTS[shard]
        return next(
            (n for n in topology.values() if "master" in n.flags and "fail" not in n.flags and n.serves(slot)), None
        )

    def shard_nodes(self, shard: int, topology: dict[int, ClusterNode]) -> list[ClusterNode]:
        master = self.master(shard, topology)
        if master is None:
            return []
        return [master, *(n for n in topology.values() if n.master_id == master.node_id)]

    def in_step(self, shard: int, topology: dict[int, ClusterNode]) -> bool:
        """Every node of the shard up, unfrozen, and its replicas linked to the master."""
        nodes = self.shard_nodes(shard, topology)
        if len(nodes) < 2 or any(n.port in self.down | self.frozen or "fail" in n.flags for n in nodes):
            return False
        return all(in_sync(self.cluster.node(replica.port)) for replica in nodes[1:])

    # --- running a schedule ---------------------------------------------------------------

    def run(self, faults: list[Fault], stop: threading.Event) -> None:
        for fault in faults:
            while not stop.is_set():
                wait = fault.at - self.elapsed()
                if self._due and self._due[0][0] - self.elapsed() < wait:
                    self._recover_due(stop)
                    continue
                if wait <= 0 or stop.wait(wait):
                    break
            if stop.is_set():
                return
            self._apply(fault)
        while self._due and not stop.is_set():
            self._recover_due(stop)

    def elapsed(self) -> float:
        return time.monotonic() - self._start

    def _later(self, delay: float, action: Callable[[], None]) -> None:
        heapq.heappush(self._due, (self.elapsed() + delay, next(self._order), action))

    def _recover_due(self, stop: threading.Event) -> None:
        due, _, action = self._due[0]
        if due > self.elapsed() and stop.wait(due - self.elapsed()):
            return
        heapq.heappop(self._due)
        action()

    def _note(self, text: str) -> None:
        now = time.strftime("%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}"
        self.log.append(f"{self.elapsed():7.2f}s ({now} UTC) {text}")

    def _apply(self, fault: Fault) -> None:
        if fault.kind == "kill-server":
            self._kill_server(fault)
            return
        topology = self.topology()
        shards = [fault.target, *(s for s in range(len(SHARD_SLOTS)) if s != fault.target)]
        if self.waits:  # at most one failure per shard: a shard in step, else none
            shards = [s for s in shards if self.in_step(s, topology)]
        for shard in shards:
            nodes = self.shard_nodes(shard, topology)
            hit = self._hit(fault, shard, nodes)
            if hit:
                self.applied[fault.kind] += 1
                self._note(f"{fault.kind} on shard {shard}: {hit}")
                return
        self.skipped[fault.kind] += 1
        self._note(f"{fault.kind}: skipped (no shard to take it)")

    def _hit(self, fault: Fault, shard: int, nodes: list[ClusterNode]) -> str:
        """Applies `fault` to the shard's nodes (master first); what it hit ("" if nothing)."""
        live = [self.cluster.node(n.port) for n in nodes if n.port not in self.down | self.frozen]
        if not nodes or not live:
            return ""
        master = self.cluster.node(nodes[0].port)
        replicas = [node for node in live if node.port != master.port]
        if fault.kind == "restart-node":
            node = random.Random(fault.at).choice(live)
            node.stop(signal.SIGTERM)
            node.start()
            return f"node {node.port} restarted"
        if fault.kind == LAGGING:
            return self._lagging(master, replicas, fault.hold) if master in live and replicas else ""
        target = master if fault.kind.endswith("master") else (replicas[0] if replicas else None)
        if target is None or target not in live:
            return ""
        if fault.kind.startswith("kill"):
            self._kill(target, fault.hold)
        else:
            self._freeze(target, fault.hold)
        return f"node {target.port}"

    def _kill(self, node: RedisServer, hold: float) -> None:
        node.stop(signal.SIGKILL)
        self.down.add(node.port)
        self._later(hold, lambda: self._restart(node))

    def _restart(self, node: RedisServer) -> None:
        if node.port in self.down:
            node.start()
            self.down.discard(node.port)
            self._note(f"node {node.port} back")

    def _freeze(self, node: RedisServer, hold: float) -> None:
        assert node.process is not None
        node.process.send_signal(signal.SIGSTOP)
        self.frozen.add(node.port)
        self._later(hold, lambda: self._thaw(node))

    def _thaw(self, node: RedisServer) -> None:
        if node.port in self.frozen and node.process is not None:
            node.process.send_signal(signal.SIGCONT)
            self.frozen.discard(node.port)
            self._note(f"node {node.port} resumed")

    def _lagging(self, master: RedisServer, replicas: list[RedisServer], hold: float) -> str:
        # The link cut, not the replicas frozen: a frozen replica would find what the
        # master sent meanwhile in its socket when it resumes, and lose nothing.
        self.cluster.cut_replication(master)
        # Down long enough for a replica to be promoted (it restarts with its link).
        self._later(LAG, lambda: self._kill(master, max(hold, LAGGING_DOWN)))
        return f"master {master.port} cut from its replicas {[r.port for r in replicas]}, killed {LAG} s later"

    def _kill_server(self, fault: Fault) -> None:
        index = fault.target
        if not self.servers.kill(index):
            self.skipped[fault.kind] += 1
            return
        self.dead_servers.add(index)
        self.applied[fault.kind] += 1
        self._note(f"server {index} killed")
        self._later(fault.hold, lambda: self._restart_server(index))

    def _restart_server(self, index: int) -> None:
        if index in self.dead_servers:
            target = self.servers.restart(index, self.url())
            self.dead_servers.discard(index)
            self._on_server(index, target)
            self._note(f"server {index} back on {target}")

    # --- healing ------------------------------------------------------------------------

    def heal(self, timeout: float = 90.0) -> float:
        """Everything back: frozen nodes resumed, dead ones restarted, servers too; then
        waits until every slot has a master and every replica is in step. Returns when
        (time.monotonic()) the cluster was healed."""
        self._due.clear()
        for port in list(self.frozen):
            self._thaw(self.cluster.node(port))
        for port in list(self.down):
            self._restart(self.cluster.node(port))
        for index in list(self.dead_servers):
            self._restart_server(index)

        def healed() -> bool:
            try:
                topology = self.topology()
                infos = [node.command("CLUSTER", "INFO") for node in self.responsive()]
                return all(b"cluster_state:ok" in _bytes(info) for info in infos) and all(
                    self.in_step(shard, topology) for shard in range(len(SHARD_SLOTS))
                )
            except Exception:
                return False

        wait_until(healed, timeout, "the cluster to heal")
        self._note("healed")
        return time.monotonic()


def _bytes(value: object) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()
