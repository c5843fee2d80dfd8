"""What an idle connection costs a server in memory, from the floor up, side by side in
one run.

`python -m service.bench.connection_floor [seats] [settle seconds]` prints one row per server, each in a
process of its own, its clients in this one (boardgame.io's in Node):

- a bare asyncio server: a Protocol that echoes, no HTTP at all, over plain sockets:
  the floor of any connection a Python server holds;
- a bare aiohttp WebSocket: a handler that echoes, no middleware, set up as
  service/api/websocket.py sets up `Play` (no compression, a heartbeat): the floor of a
  WebSocket in the framework the HTTP port is built on (docs/ARCHITECTURE.md);
- the maintained WebSocket libraries that could carry `Play`'s connection instead
  (issue 43), each echoing: aiohttp's handshake on the same port, then the connection
  handed to wsproto on an asyncio Protocol (what `Play` needs: its route, subprotocols
  and origin checks stay aiohttp's); websockets' own asyncio server; picows' own server.
  They are installed by the bench itself, pinned (CANDIDATES), into a cache folder of
  their own, not into the service's environment;
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
import contextlib
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from ludotheque.v1 import game_service_pb2

from service.bench.capacity import CROWD_ENV
from service.bench.load import create_rest
from service.bench.target import Server, rss_bytes
from service.bench.versus import (
    HARNESS,
    BoardgameioServer,
    HarnessError,
    cache_root,
    install_harness,
    json_line,
    node_env,
)

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
# aiohttp's server, serving GET /echo with the `echo` handler its source defines first.
AIOHTTP_MAIN = """
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
BARE_AIOHTTP = (
    """
import asyncio
from aiohttp import WSMsgType, web

async def echo(request):
    socket = web.WebSocketResponse(heartbeat=20.0, compress=False)
    await socket.prepare(request)
    async for message in socket:
        if message.type is WSMsgType.BINARY:
            await socket.send_bytes(message.data)
    return socket
"""
    + AIOHTTP_MAIN
)
# The candidates for `Play`'s connection after the handshake, pinned: what the rows measure.
CANDIDATES = ("wsproto==1.3.2", "websockets==17.4", "picows==2.3.1")
PIP_TIMEOUT = 300  # seconds: pip installs the candidates into the cache on first use
# aiohttp's handshake, then the connection is wsproto's on an asyncio Protocol: aiohttp's
# request handler lets go of the transport (it holds none, and forgets the connection).
HANDED_TO_WSPROTO = (
    """
import asyncio
from aiohttp import web
from wsproto import ConnectionType
from wsproto.events import AcceptConnection, BytesMessage, CloseConnection, Ping
from wsproto.handshake import H11Handshake

class Echo(asyncio.Protocol):
    __slots__ = ("ws", "transport")

    def __init__(self, ws):
        self.ws = ws

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        ws, out = self.ws, []
        ws.receive_data(data)
        for event in ws.events():
            if isinstance(event, BytesMessage):
                out.append(ws.send(BytesMessage(data=event.data)))
            elif isinstance(event, (Ping, CloseConnection)):
                out.append(ws.send(event.response()))
        self.transport.writelines(out)

async def echo(request):
    handshake = H11Handshake(ConnectionType.SERVER)
    handshake.initiate_upgrade_connection(list(request.raw_headers), request.raw_path)
    accepted = handshake.send(AcceptConnection())
    transport, handler = request.transport, request.protocol
    transport.set_protocol(Echo(handshake.connection))  # the frames' side only, not the handshake's
    handler.transport = None
    handler.connection_lost(None)
    transport.get_protocol().connection_made(transport)
    transport.write(accepted)
    return web.Response()  # written nowhere: aiohttp's handler has no transport now
"""
    + AIOHTTP_MAIN
)
WEBSOCKETS = """
import asyncio
from websockets.asyncio.server import serve

async def echo(ws):
    async for message in ws:
        await ws.send(message)

async def main():
    async with serve(echo, "127.0.0.1", 0, compression=None, ping_interval=20.0) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""
PICOWS = """
import asyncio
from picows import WSListener, WSMsgType, ws_create_server

class Echo(WSListener):
    def on_ws_frame(self, transport, frame):
        if frame.msg_type == WSMsgType.BINARY:
            transport.send(WSMsgType.BINARY, frame.get_payload_as_bytes())
        elif frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code(), frame.get_close_message())
            transport.disconnect()

async def main():
    server = await ws_create_server(lambda request: Echo(), "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""
PING = b"x" * 40  # what a bare connection sends once, and has echoed, before it idles


@dataclass(frozen=True)
class Floor:
    server: str
    connections: int
    rss_per_connection: float  # bytes


def _python_server(source: str, path: Path | None = None) -> tuple[subprocess.Popen[str], int]:
    """A server from `source`, in a process of its own (`path`: where the candidates are
    installed, put first on its import path)."""
    env = None if path is None else {**os.environ, "PYTHONPATH": os.pathsep.join((str(path), *sys.path))}
    process = subprocess.Popen([sys.executable, "-c", source], stdout=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    port = process.stdout.readline().strip()
    if not port:
        raise SystemExit(f"a bare server did not start (exit status {process.wait()})")
    return process, int(port)


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(30)


def install_candidates() -> Path:
    """The candidate WebSocket libraries, installed (`pip install --target`) into the
    cache on first use: one folder per list of pins, so a new pin installs afresh."""
    digest = hashlib.sha256(" ".join(CANDIDATES).encode()).hexdigest()[:16]
    target = cache_root() / f"websocket-candidates-{digest}"
    if (target / "wsproto").is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Installed beside, then renamed: two runs at once never see half a folder.
    scratch = Path(tempfile.mkdtemp(prefix="websocket-candidates-", dir=target.parent))
    try:
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-input", "--target", str(scratch)]
        try:
            done = subprocess.run(
                [*command, *CANDIDATES], capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired as error:
            raise SystemExit(f"pip took over {PIP_TIMEOUT} s: is the package index reachable?") from error
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
            raise SystemExit(f"pip could not install {' '.join(CANDIDATES)} (is the package index reachable?):\n{tail}")
        with contextlib.suppress(OSError):  # another run installed them meanwhile: theirs are as good
            scratch.rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


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
    return _websocket_echo("a bare aiohttp WebSocket (a handler that echoes)", BARE_AIOHTTP, connections, settle)


def candidates(connections: int, settle: float = SETTLE_SECONDS) -> list[Floor]:
    """The rows of the libraries that could carry `Play`'s connection."""
    path = install_candidates()
    rows = (
        ("aiohttp's handshake, then wsproto 1.3 on an asyncio Protocol (same port)", HANDED_TO_WSPROTO),
        ("websockets 17.4's asyncio server (its own port)", WEBSOCKETS),
        ("picows 2.3's server (its own port)", PICOWS),
    )
    return [_websocket_echo(name, source, connections, settle, path) for name, source in rows]


def _websocket_echo(name: str, source: str, connections: int, settle: float, path: Path | None = None) -> Floor:
    """A WebSocket server that echoes at /echo, each connection echoed once, then idle."""
    process, port = _python_server(source, path)
    try:
        before = _settled_rss(process.pid, settle)
        after = asyncio.run(_echo_sockets(f"http://127.0.0.1:{port}/echo", connections, process.pid, settle))
    finally:
        _stop(process)
    return Floor(name, connections, (after - before) / connections)


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
    return [
        bare_asyncio(seats, settle),
        bare_aiohttp(seats, settle),
        *candidates(seats, settle),
        boardgameio(seats, settle),
        ours(seats, settle),
    ]


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
