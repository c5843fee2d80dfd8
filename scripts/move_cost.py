"""What one move costs the server's code: the modules it visits and how often control goes
back into one it had left (``trace``), and the server's CPU per move (``cpu``), for the
tree given (so an older commit's worktree and this one are measured side by side).

    python scripts/move_cost.py trace [--tree DIR]          # one SubmitCommand, traced
    MOVE_COST_STEPS=1 python scripts/move_cost.py trace     # ... and every module entry, in order
    python scripts/move_cost.py cpu --tree A --tree B ...   # CPU per move, trees alternated

How ``trace`` counts: the server runs in this process (memory store, gRPC); one Mooki
``SubmitCommand`` of a human seat (no bots) is traced with ``sys.setprofile``, its first
moves played untraced. Only frames of the server's own code count (``service.*`` and
``engines.*``, generated messages and libraries left out). A *module entry* is a call
into a function whose module differs from the nearest server frame below it (a
coroutine resumed by the event loop has none: it counts as an entry too); a *return into
a module left* is an entry into a module the move had entered before. Every Python function called
(the server's or a library's) is counted too. The counts are exact for the tree and do
not depend on the machine's speed.

How ``cpu`` counts: each tree's server is started as ``ludotheque serve`` (memory store)
in a process of its own; one client plays Mooki games of two human seats over gRPC, one
call at a time, the first legal command each turn; the server's user+system CPU from
``/proc/<pid>/stat`` over the measured moves, divided by them. Trees are alternated
``--rounds`` times so a noisy machine weighs on each alike.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Tokens signed with a secret of this run's own (the server warns without one).
os.environ.setdefault("LUDOTHEQUE_SECRET", os.urandom(32).hex())
SERVER_PACKAGES = ("service.", "engines.")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _play(stub: Any, pb: Any, moves: int, skip: int = 0) -> None:
    """Plays ``moves`` moves over fresh two-human Mooki games, the first legal command each."""
    done = 0
    while done < moves:
        created = await stub.CreateGame(pb.CreateGameRequest(kind="mooki", seats=_seats()))
        tokens = list(created.seat_tokens)
        to_act = list(created.game.to_act)
        while done < moves and to_act:
            seat = to_act[0]
            meta = (("authorization", f"Bearer {tokens[seat]}"),)
            view = await stub.GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=meta)
            if not view.legal_commands:
                break
            answer = await stub.SubmitCommand(
                pb.SubmitCommandRequest(
                    game_id=created.game_id, command=view.legal_commands[0], command_id=os.urandom(8).hex()
                ),
                metadata=meta,
            )
            to_act = list(answer.to_act)
            done += 1


def _seats() -> list[Any]:
    from ludotheque.v1 import game_pb2

    return [game_pb2.SeatSpec(name="A"), game_pb2.SeatSpec(name="B")]


def _module_of(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if name.startswith(SERVER_PACKAGES) else None


class Tracer:
    """Counts module entries and returns into modules already left, over server frames."""

    def __init__(self) -> None:
        self.entries = 0
        self.calls = 0  # every Python function called, the server's or a library's
        self.reentries = 0
        self.visits: Counter[str] = Counter()
        self.steps: list[tuple[str | None, str, str]] = []
        self._left: set[str] = set()
        self._current: str | None = None

    def __call__(self, frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        self.calls += 1
        module = _module_of(frame)
        if module is None:
            return
        below = frame.f_back
        while below is not None and _module_of(below) is None:
            below = below.f_back
        caller = _module_of(below) if below is not None else None
        if caller == module:
            return
        self.entries += 1
        self.steps.append((caller, module, frame.f_code.co_name))
        self.visits[module] += 1
        if self.visits[module] > 1:
            self.reentries += 1


async def _trace(tree: Path) -> None:
    import grpc
    from ludotheque.v1 import game_service_pb2 as pb
    from ludotheque.v1 import game_service_pb2_grpc as rpc

    from service.cli import build_parser
    from service.cli import serve as serving
    from service.cli.config import from_arguments

    args = build_parser().parse_args(["serve", "--grpc-port", "0", "--http-port", "0", "--log-level", "warning"])
    running = await serving.start(from_arguments(args, os.environ))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel:
            stub = rpc.GameServiceStub(channel)
            await _play(stub, pb, 40)  # warm: every path of a move imported and cached
            created = await stub.CreateGame(pb.CreateGameRequest(kind="mooki", seats=_seats()))
            seat = created.game.to_act[0]
            meta = (("authorization", f"Bearer {created.seat_tokens[seat]}"),)
            view = await stub.GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=meta)
            first = pb.SubmitCommandRequest(game_id=created.game_id, command=view.legal_commands[0], command_id="warm")
            answer = await stub.SubmitCommand(first, metadata=meta)
            request = pb.SubmitCommandRequest(
                game_id=created.game_id, command=answer.legal_commands[0], command_id="traced"
            )
            tracer = Tracer()
            sys.setprofile(tracer)
            try:
                await stub.SubmitCommand(request, metadata=meta)
            finally:
                sys.setprofile(None)
    finally:
        await running.stop()
    print(f"tree {tree}")
    print(
        f"module entries {tracer.entries} in {len(tracer.visits)} modules;"
        f" returns into a module left {tracer.reentries}; Python calls {tracer.calls}"
    )
    for module, count in tracer.visits.most_common():
        print(f"  {count:4d}  {module}")
    if os.environ.get("MOVE_COST_STEPS"):
        for caller, module, function in tracer.steps:
            print(f"  {caller or '(loop)'} -> {module}.{function}")


def _cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _cpu_round(tree: Path, moves: int) -> float:
    import grpc
    from ludotheque.v1 import game_service_pb2 as pb
    from ludotheque.v1 import game_service_pb2_grpc as rpc

    port = _free_port()
    # No creation rate: the rounds create a game every few dozen moves.
    env = dict(os.environ, PYTHONPATH=f"{tree}:{tree / 'clients/python/src'}", LUDOTHEQUE_CREATE_RATE="0")
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))",
            "serve",
            "--grpc-port",
            str(port),
            "--http-port",
            "0",
            "--log-level",
            "warning",
            "--no-web",
        ],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            await asyncio.wait_for(channel.channel_ready(), 60)
            stub = rpc.GameServiceStub(channel)
            await _play(stub, pb, 200)
            before = _cpu_of(server.pid)
            await _play(stub, pb, moves)
            return (_cpu_of(server.pid) - before) / moves * 1e6
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["trace", "cpu"])
    parser.add_argument("--tree", action="append", type=Path, help="a checkout to measure (default: this one)")
    parser.add_argument("--moves", type=int, default=2000, help="cpu: moves measured per round")
    parser.add_argument("--rounds", type=int, default=3, help="cpu: rounds, trees alternated")
    options = parser.parse_args()
    trees = [tree.resolve() for tree in options.tree or [ROOT]]
    if options.what == "trace":
        sys.path[:0] = [str(trees[0]), str(trees[0] / "clients/python/src")]
        asyncio.run(_trace(trees[0]))
        return
    figures: dict[Path, list[float]] = {tree: [] for tree in trees}
    for _ in range(options.rounds):
        for tree in trees:
            started = time.monotonic()
            figures[tree].append(asyncio.run(_cpu_round(tree, options.moves)))
            print(f"{tree}: {figures[tree][-1]:.0f} µs/move ({time.monotonic() - started:.0f} s)", flush=True)
    for tree, values in figures.items():
        print(
            f"{tree}: median {statistics.median(values):.0f} µs/move"
            f" over {len(values)} rounds: {[round(v) for v in values]}"
        )


if __name__ == "__main__":
    main()
