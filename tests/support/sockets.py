"""A process's TCP sockets as the kernel lists them (/proc/net/tcp): what a server holds
toward its clients, for tests that wait until it let them go or count what it queued."""

from __future__ import annotations

import os
from dataclasses import dataclass

LISTEN = 0x0A  # the kernel's TCP_LISTEN, as /proc/net/tcp writes states


@dataclass(frozen=True, slots=True)
class TcpSocket:
    local_port: int
    remote_port: int
    state: int
    send_queue: int  # bytes sent and not yet acknowledged, or not yet sent
    receive_queue: int  # bytes received and not yet read


def tcp_sockets(pid: int) -> list[TcpSocket]:
    """The TCP sockets process `pid` holds open, each once: /proc/net/tcp is read in
    parts, and a socket that moved in the kernel's table meanwhile shows twice."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in rows.read().splitlines()[1:]:
                fields = row.split()
                if fields[9] not in inodes:
                    continue
                inodes.remove(fields[9])  # counted once
                send_queue, receive_queue = fields[4].split(":")
                found.append(
                    TcpSocket(
                        local_port=int(fields[1].rsplit(":", 1)[1], 16),
                        remote_port=int(fields[2].rsplit(":", 1)[1], 16),
                        state=int(fields[3], 16),
                        send_queue=int(send_queue, 16),
                        receive_queue=int(receive_queue, 16),
                    )
                )
    return found


def connections_on(pid: int, port: int) -> int:
    """How many connections process `pid` holds open on its listening `port`."""
    return sum(1 for each in tcp_sockets(pid) if each.local_port == port and each.state != LISTEN)
