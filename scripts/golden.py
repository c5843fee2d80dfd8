"""Write the golden game logs of seeds/replays/: complete games of every game kind.

    python scripts/golden.py            # (re)writes seeds/replays/<kind>/*
    python scripts/golden.py --kind mooki

Each game is played by bots through GameApp on the memory store, with a fixed seed and
a fixed clock, so rewriting gives the same files. Beside each log, <name>.expected.json
holds the final status and every viewer's final view; tests/tooling/test_golden_replays.py
replays each log through the engines and compares. Rewrite them only when a rules
change is meant to alter past games (and bump that engine's rules version)."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from google.protobuf import json_format  # noqa: E402
from ludotheque.v1 import game_pb2  # noqa: E402
from ludotheque.v1 import game_service_pb2 as api  # noqa: E402

from engines.contract import Viewer  # noqa: E402
from engines.registry import ENGINES, AnyEngine  # noqa: E402
from service.app import GameApp, gamelog  # noqa: E402
from service.app.auth import TokenAuthority  # noqa: E402
from service.app.verify import Replayed, verify  # noqa: E402
from service.store.memory import MemoryStore  # noqa: E402

REPLAYS = ROOT / "seeds" / "replays"
GAMES_PER_KIND = 3
ADMIN = "golden-admin"
BOT_MIXES = (("greedy", "random"), ("random", "greedy"), ("greedy", "greedy"), ("random", "random"))


def viewers(seat_count: int) -> dict[str, Viewer]:
    found = {f"seat{s}": Viewer.player(s) for s in range(seat_count)}
    return {**found, "spectator": Viewer.spectator(), "admin": Viewer.admin()}


def expected(engine: AnyEngine, log: game_pb2.GameLog) -> dict[str, Any]:
    """What replaying `log` must give: the final status and every viewer's view."""
    checked = verify(log)
    if not isinstance(checked, Replayed):
        raise SystemExit(f"a fresh log does not verify: {checked}")
    final = checked.states[-1]
    status = engine.status(final)
    return {
        "version": len(log.events),
        "status": {
            "finished": status.finished,
            "to_act": list(status.to_act),
            "winners": list(status.winners),
            "scores": list(status.scores),
        },
        "views": {
            name: json_format.MessageToDict(engine.view(final, viewer))
            for name, viewer in viewers(len(log.header.seats)).items()
        },
    }


async def play(engine: AnyEngine, number: int) -> game_pb2.GameLog:
    seat_counts = list(range(engine.min_seats, engine.max_seats + 1))
    seats = seat_counts[number % len(seat_counts)]
    bots = BOT_MIXES[number % len(BOT_MIXES)]
    clock = itertools.count(1_800_000_000_000, 1000)
    app = GameApp(
        MemoryStore(),
        TokenAuthority(b"golden-logs-secret-0123456789", ADMIN),
        clock=lambda: next(clock) / 1000,
        new_game_id=lambda: f"golden-{engine.kind}-{number + 1}",
        new_seed=lambda: 1000 + number,
    )
    specs = [game_pb2.SeatSpec(name=f"Player {s + 1}", bot=bots[s % len(bots)], age=5 + s) for s in range(seats)]
    created = await app.create_game(api.CreateGameRequest(kind=engine.kind, seats=specs), ADMIN)
    if created.game.status != game_pb2.GAME_STATUS_FINISHED:
        raise SystemExit(f"{engine.kind}: a game of bots did not finish")
    return (await app.export_game(api.ExportGameRequest(game_id=created.game_id), ADMIN)).log


def write(kind: str) -> None:
    engine = ENGINES[kind]
    folder = REPLAYS / kind
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*"):
        old.unlink()
    for number in range(GAMES_PER_KIND):
        log = asyncio.run(play(engine, number))
        name = f"game-{number + 1}"
        (folder / f"{name}.jsonl").write_text(gamelog.to_jsonl(log))
        document = json.dumps(expected(engine, log), indent=1, ensure_ascii=False, sort_keys=True)
        (folder / f"{name}.expected.json").write_text(document + "\n")
        print(f"{folder / name}: {len(log.events)} events")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(ENGINES), help="only this kind (default: every kind)")
    args = parser.parse_args()
    for kind in [args.kind] if args.kind else sorted(ENGINES):
        write(kind)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
