"""What an idle connection costs a server in memory, from the floor up, side by side in
one run.

`python -m service.bench.connection_floor [seats] [settle seconds]` prints one row per server, each in a
process of its own, its clients in this one (boardgame.io's in Node):

- a bare asyncio server: a Protocol that echoes, no HTTP at all, over plain sockets:
  the floor of any connection a Python server holds;
- a bare aiohttp WebSocket: a handler that echoes, no middleware, set up as
  service/api/websocket.py sets up `Play` (no compression, a heartbeat): the floor of a
  WebSocket in the framework the HTTP port is built on (docs/ARCHITECTURE.md);
- boardgame.io 0.50's server (Node, its in-memory store, socket.io), each seat its own
  client of a two-seat match, joined and holding its first state (versus.py installs
  it from npm): the reference the `Play` path is held against per move;
- ours: `ludotheque serve` (memory store), each seat of a two-seat Mooki game on its
  own WebSocket `Play` session with presence and view updates, as the web app and the
  capacity crowd join.

Memory per connection: the server's RSS once every connection is open and has been
idle for a moment, less its RSS before the first (its games or matches already made),
over their number. Node collects its garbage when it chooses: its row may hold some."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

import aiohttp
from ludotheque.v1 import game_service_pb2

from service.bench.capacity import CROWD_ENV
from service.bench.load import create_rest
from service.bench.target import Server, rss_bytes
from service.bench.versus import HARNESS, BoardgameioServer, HarnessError, install_harness, json_line, node_env

SETTLE_SECONDS = 2.0  # idle, once every connection is open (and before the first), before RSS is read

# The two bare servers: each prints its port once it listens, then serves until killed.
BARE_ASYNCIO = """
import asyncio

class Echo(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.transport.write(data)

async def main():
    server = await asyncio.get_running_loop().create_server(Echo, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""
BARE_AIOHTTP = """
import asyncio
from aiohttp import WSMsgType, web

async def echo(request):
    socket = web.WebSocketResponse(heartbeat=20.0, compress=False)
    await socket.prepare(request)
    async for message in socket:
        if message.type is WSMsgType.BINARY:
            await socket.send_bytes(message.data)
    return socket

async def main():
    app = web.Application()
    app.router.add_get("/echo", echo)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    print(runner.addresses[0][1], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""
PING = b"x" * 40  # what a bare connection sends once, and has echoed, before it idles


@dataclass(frozen=True)
class Floor:
    server: str
    connections: int
    rss_per_connection: float  # bytes


def _python_server(source: str) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([sys.executable, "-c", source], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    port = process.stdout.readline().strip()
    if not port:
        raise SystemExit(f"a bare server did not start (exit status {process.wait()})")
    return process, int(port)


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(30)


def _settled_rss(pid: int, settle: float) -> int:
    time.sleep(settle)
    return rss_bytes([pid])


def bare_asyncio(connections: int, settle: float = SETTLE_SECONDS) -> Floor:
    process, port = _python_server(BARE_ASYNCIO)
    held: list[socket.socket] = []
    try:
        before = _settled_rss(process.pid, settle)
        for _ in range(connections):
            client = socket.create_connection(("127.0.0.1", port), timeout=30)
            client.sendall(PING)
            client.recv(len(PING))
            held.append(client)
        after = _settled_rss(process.pid, settle)
    finally:
        for client in held:
            client.close()
        _stop(process)
    return Floor("a bare asyncio server (a Protocol that echoes)", connections, (after - before) / connections)


def bare_aiohttp(connections: int, settle: float = SETTLE_SECONDS) -> Floor:
    process, port = _python_server(BARE_AIOHTTP)
    try:
        before = _settled_rss(process.pid, settle)
        after = asyncio.run(_echo_sockets(f"http://127.0.0.1:{port}/echo", connections, process.pid, settle))
    finally:
        _stop(process)
    return Floor("a bare aiohttp WebSocket (a handler that echoes)", connections, (after - before) / connections)


async def _echo_sockets(url: str, connections: int, pid: int, settle: float) -> int:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        held = []
        for _ in range(connections):
            ws = await session.ws_connect(url)
            await ws.send_bytes(PING)
            await ws.receive()
            held.append(ws)
        after = await asyncio.to_thread(_settled_rss, pid, settle)
        for ws in held:
            await ws.close()
    return after


def boardgameio(seats: int, settle: float = SETTLE_SECONDS) -> Floor:
    """boardgame.io's server, `seats` // 2 matches of two seats."""
    modules = install_harness()
    server = BoardgameioServer.start(modules)
    matches = seats // 2
    command = ["node", str(HARNESS / "idle.js"), "--server", server.url, "--matches", str(matches)]
    clients = subprocess.Popen(command, env=node_env(modules), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert clients.stdin is not None and clients.stdout is not None
    try:
        json_line(clients.stdout, "boardgame.io's idle seats")  # the matches are made
        before = _settled_rss(server.process.pid, settle)
        clients.stdin.write("join\n")
        clients.stdin.flush()
        joined = json_line(clients.stdout, "boardgame.io's idle seats")["joined"]
        after = _settled_rss(server.process.pid, settle)
        clients.stdin.write("leave\n")
        clients.stdin.flush()
        clients.wait(60)
    finally:
        if clients.poll() is None:
            clients.kill()
            clients.wait()
        server.stop()
    if joined != 2 * matches:
        raise HarnessError(f"boardgame.io: {joined} seats joined of {2 * matches}")
    return Floor(
        "boardgame.io 0.50's server (socket.io), a seat of a two-seat match", joined, (after - before) / joined
    )


def ours(seats: int, settle: float = SETTLE_SECONDS) -> Floor:
    """`ludotheque serve` on the memory store, `seats` // 2 two-seat Mooki games."""
    server = Server.start("memory", env=CROWD_ENV)
    try:
        joined, before, after = asyncio.run(_play_seats(server, seats // 2, settle))
    finally:
        server.stop()
    return Floor("ours: a WebSocket `Play` seat, presence and view updates", joined, (after - before) / joined)


async def _play_seats(server: Server, games: int, settle: float) -> tuple[int, int, int]:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        made = [await create_rest(session, server.http, "mooki", False) for _ in range(games)]
        before = await asyncio.to_thread(_settled_rss, server.process.pid, settle)
        held = []
        for game in made:
            for token in game.tokens:
                ws = await session.ws_connect(f"{server.http}/v1/play", protocols=("ludotheque.v1.proto",))
                join = game_service_pb2.PlayJoin(game_id=game.game_id, token=token, view_updates=True, presence=True)
                await ws.send_bytes(game_service_pb2.PlayRequest(join=join).SerializeToString())
                first = await ws.receive()
                if first.type is not aiohttp.WSMsgType.BINARY:
                    raise SystemExit(f"a seat's join was not answered: {first.type.name} {first.data!r}")
                if game_service_pb2.PlayResponse.FromString(first.data).HasField("error"):
                    raise SystemExit(f"a seat's join was refused: {first.data!r}")
                held.append(ws)
        after = await asyncio.to_thread(_settled_rss, server.process.pid, settle)
        for ws in held:
            await ws.close()
    return len(held), before, after


def floors(seats: int, settle: float = SETTLE_SECONDS) -> list[Floor]:
    return [bare_asyncio(seats, settle), bare_aiohttp(seats, settle), boardgameio(seats, settle), ours(seats, settle)]


def report(seats: int = 2000, settle: float = SETTLE_SECONDS) -> list[str]:
    measured = floors(seats, settle)
    out = ["| an idle connection | connections | server RSS per connection |", "|---|---|---|"]
    out += [
        f"| {floor.server} | {floor.connections:,} | {floor.rss_per_connection / 1024:.1f} KiB |" for floor in measured
    ]
    return out


if __name__ == "__main__":
    seats = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print("\n".join(report(seats, float(sys.argv[2]) if len(sys.argv) > 2 else SETTLE_SECONDS)))
