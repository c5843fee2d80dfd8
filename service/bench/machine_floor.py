"""What this machine charges for what a move at a human pace cannot batch: a process
woken from idle, a write that Redis fsyncs alone, and the move's own work once time
passed since the last.

`python -m service.bench.machine_floor` prints all three:

- wake-ups: two processes ping-pong one byte over a socketpair, back to back, then with
  a pause between pings, so that both sides sleep and every ping wakes them; the CPU time
  each side was charged per ping (getrusage);
- Redis writes: one `XADD` at a time to a redis-server of its own, with the deployment's
  configuration (fsync on every write) and then without the fsync, at a human pace and
  flat out; Redis's own CPU time per write (INFO cpu, user and system apart), and the
  part of it that Redis spends with no writes at all (measured first, over as long);
- a move's own work: GameApp alone (memory store, no transport: micro.app_figures)
  playing Mooki moves back to back, then with the loop asleep 50 ms before each move,
  then with the process busy through those 50 ms (it never sleeps); the CPU time of
  the move alone, counted from its wake-up on: what the same work costs once time
  passed, and whether sleeping is what makes it dearer.

Under full load none of these costs shows: processes never sleep, one fsync covers every
write of a loop turn, and each move follows the last at once. At a human pace each move
pays them alone."""

from __future__ import annotations

import os
import resource
import socket
import sys
import time
from dataclasses import dataclass

import redis

from service.bench.micro import app_figures
from service.bench.target import Redis

MOVE_PAUSE = 0.05  # seconds asleep (or busy) before each move: a crowd's server between moves


@dataclass(frozen=True)
class Wakeups:
    pause: float  # seconds between pings; 0: back to back
    round_trip: float  # seconds, wall clock
    pinger_cpu: float  # CPU seconds per ping, the side that sleeps between pings
    ponger_cpu: float  # CPU seconds per ping, the side that only answers


def _answer(sock: socket.socket) -> None:
    while (data := sock.recv(1)) not in (b"", b"q"):
        sock.send(data)
    used = resource.getrusage(resource.RUSAGE_SELF)
    sock.send(f"{used.ru_utime} {used.ru_stime}".encode())


def wakeups(pause: float, pings: int) -> Wakeups:
    """One ping-pong run between this process and a forked one."""
    mine, theirs = socket.socketpair()
    child = os.fork()
    if child == 0:  # pragma: no cover - the forked side
        mine.close()
        _answer(theirs)
        os._exit(0)
    theirs.close()
    before = resource.getrusage(resource.RUSAGE_SELF)
    waited = 0.0
    for _ in range(pings):
        start = time.perf_counter()
        mine.send(b"x")
        mine.recv(1)
        waited += time.perf_counter() - start
        if pause:
            time.sleep(pause)
    after = resource.getrusage(resource.RUSAGE_SELF)
    mine.send(b"q")
    user, system = map(float, mine.recv(100).split())
    os.waitpid(child, 0)
    mine.close()
    spent = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return Wakeups(pause, waited / pings, spent / pings, (user + system) / pings)


@dataclass(frozen=True)
class Writes:
    fsync: bool  # appendfsync always (the deployment), else no append-only file
    rate: float | None  # writes a second asked; None: flat out
    user: float  # Redis's CPU seconds per write, user and system
    system: float
    idle: float  # of it, per write, what Redis spends with no writes at all (its cron)


def writes(fsync: bool, rate: float | None, count: int) -> Writes:
    options = () if fsync else ("--appendonly", "no")
    server = Redis.start(*options)
    try:
        client = redis.Redis(port=server.port)
        client.ping()
        # Redis's own idle cost first, over the time the paced writes will take (at most 10 s)
        idle_seconds = min(count / rate, 10.0) if rate else 0.0
        user, system = server.cpu_times()
        time.sleep(idle_seconds)
        idle_user, idle_system = server.cpu_times()
        idle_rate = (idle_user - user + idle_system - system) / idle_seconds if idle_seconds else 0.0
        start = time.monotonic()
        for index in range(count):
            client.xadd(f"game:{index % 64}", {"event": b"x" * 200})
            if rate is not None and (delay := start + (index + 1) / rate - time.monotonic()) > 0:
                time.sleep(delay)
        seconds = time.monotonic() - start
        after_user, after_system = server.cpu_times()
        client.close()
    finally:
        server.stop()
    return Writes(
        fsync,
        rate,
        (after_user - idle_user) / count,
        (after_system - idle_system) / count,
        idle_rate * seconds / count,
    )


def report(pings: int = 400, count: int = 400, move_seconds: float = 0.1) -> list[str]:
    """`move_seconds`: CPU seconds of moves 50 ms apart (a tenth of a second: a few
    hundred moves, 15-30 s of waiting), five times that back to back."""
    out = [
        "| a one-byte ping-pong between two processes | round trip | CPU per ping: the side that sleeps | "
        "the side that answers |",
        "|---|---|---|---|",
    ]
    for pause in (0.0, 0.001, 0.05):
        ping = wakeups(pause, pings * 10 if pause == 0 else pings)
        name = "back to back" if pause == 0 else f"{pause * 1000:g} ms apart"
        out.append(
            f"| {name} | {ping.round_trip * 1e6:,.0f} µs | {ping.pinger_cpu * 1e6:,.0f} µs | "
            f"{ping.ponger_cpu * 1e6:,.0f} µs |"
        )
    out += [
        "",
        "| one `XADD` at a time | Redis CPU per write (user) | (system) | of which Redis idle (its cron) |",
        "|---|---|---|---|",
    ]
    for fsync in (True, False):
        for rate in (20.0, None):
            write = writes(fsync, rate, count if rate else count * 10)
            mode = "fsync on every write" if fsync else "no append-only file"
            pace = f"{rate:g} a second" if rate else "flat out"
            out.append(
                f"| {mode}, {pace} | {write.user * 1e6:,.0f} µs | {write.system * 1e6:,.0f} µs | "
                f"{write.idle * 1e6:,.0f} µs |"
            )
    out += [
        "",
        "| a Mooki move's own work (GameApp alone, memory store) | moves | CPU per move |",
        "|---|---|---|",
    ]
    for pause, spin in ((0.0, False), (MOVE_PAUSE, False), (MOVE_PAUSE, True)):
        work = app_figures("mooki", move_seconds * (5 if pause == 0 else 1), pause=pause, spin=spin)
        how = "busy (spinning)" if spin else "asleep"
        name = "back to back" if pause == 0 else f"{pause * 1000:g} ms {how} before each"
        out.append(f"| {name} | {work.moves:,} | {work.us_per_move:,.0f} µs |")
    return out


if __name__ == "__main__":
    pings = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    print("\n".join(report(pings, pings, pings / 4000)))
