"""Write the golden game logs of seeds/replays/: complete games of every game kind.

    python scripts/golden.py            # (re)writes seeds/replays/<kind>/*
    python scripts/golden.py --kind mooki
    python scripts/golden.py --check    # only say whether they would change (and how)

Each game is played by bots through GameApp on the memory store, with a fixed seed and
a fixed clock, so rewriting gives the same files. Beside each log, <name>.expected.json
holds the final status and every viewer's final view; tests/logs/test_golden_replays.py
replays each log through the engines and compares.

Golden logs change only on purpose: a log that would come out differently under the
rules version it was written with is not rewritten; the script shows the difference and
fails. A rules change that alters past games bumps that engine's rules version (and pins
its data, seeds/<kind>/data-lock.json); then its logs are rewritten."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import itertools
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from google.protobuf import json_format  # noqa: E402
from ludotheque.v1 import game_pb2  # noqa: E402
from ludotheque.v1 import game_service_pb2 as api  # noqa: E402

from engines.contract import Viewer  # noqa: E402
from engines.registry import ENGINES, AnyEngine  # noqa: E402
from service.app import GameApp  # noqa: E402
from service.app.access.auth import TokenAuthority  # noqa: E402
from service.app.game_app import World  # noqa: E402
from service.app.logs.verify import Replayed, verify  # noqa: E402
from service.app.model import gamelog  # noqa: E402
from service.store.memory import MemoryStore  # noqa: E402

REPLAYS = ROOT / "seeds" / "replays"
GAMES_PER_KIND = 3
DIFF_LINES = 40  # of a refused change, shown per file
ADMIN = "golden-admin-token-0123456789abcdef"
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
        TokenAuthority(b"golden-logs-secret-0123456789abcdef", ADMIN),
        world=World(
            clock=lambda: next(clock) / 1000,
            new_game_id=lambda: f"golden-{engine.kind}-{number + 1}",
            new_seed=lambda: 1000 + number,
        ),
    )
    specs = [game_pb2.SeatSpec(name=f"Player {s + 1}", bot=bots[s % len(bots)], age=5 + s) for s in range(seats)]
    created = await app.games.create_game(api.CreateGameRequest(kind=engine.kind, seats=specs), ADMIN)
    if created.game.status != game_pb2.GAME_STATUS_FINISHED:
        raise SystemExit(f"{engine.kind}: a game of bots did not finish")
    log = (await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id), ADMIN)).log
    for event in log.events:  # words follow the catalogs; a golden log pins the game only
        event.ClearField("description")
    return log


def render(kind: str) -> dict[str, str]:
    """Every golden file of `kind`, by name, as the engines write it today."""
    engine = ENGINES[kind]
    files: dict[str, str] = {}
    for number in range(GAMES_PER_KIND):
        log = asyncio.run(play(engine, number))
        name = f"game-{number + 1}"
        files[f"{name}.jsonl"] = gamelog.to_jsonl(log)
        document = json.dumps(expected(engine, log), indent=1, ensure_ascii=False, sort_keys=True)
        files[f"{name}.expected.json"] = document + "\n"
    return files


@dataclass
class Outcome:
    """What refreshing a kind's golden logs found: the files written (or, checking,
    that would be), and the changes refused, each with its diff."""

    written: list[str]
    refused: list[str]


def refresh(kind: str, folder: Path | None = None, *, check: bool = False) -> Outcome:
    """Rewrites the golden logs of `kind` in `folder` (seeds/replays/<kind>/), unless a
    file would change while its log's rules version is still the engine's: then
    nothing is written and the diff is returned. `check`: write nothing at all."""
    folder = folder or REPLAYS / kind
    version = ENGINES[kind].rules_version
    fresh = render(kind)
    old = {path.name: path.read_text() for path in sorted(folder.glob("*"))} if folder.exists() else {}
    changed = sorted(name for name in fresh.keys() | old.keys() if fresh.get(name) != old.get(name))
    refused = [
        _diff(folder / name, old.get(name, ""), fresh.get(name, ""))
        for name in changed
        if _rules_version(old, name) == version
    ]
    if refused or check or not changed:
        return Outcome(changed, refused)
    folder.mkdir(parents=True, exist_ok=True)
    for name in changed:
        if name in fresh:
            (folder / name).write_text(fresh[name])
        else:
            (folder / name).unlink()
    return Outcome(changed, [])


def _rules_version(files: dict[str, str], name: str) -> str | None:
    """The rules version in the header of the log `name` belongs to (None: no such log)."""
    log = files.get(name.split(".")[0] + ".jsonl")
    if not log:
        return None
    try:
        header = json.loads(log.split("\n", 1)[0])
    except ValueError:
        return None  # not a log
    return str(header.get("rulesVersion", "")) if isinstance(header, dict) else None


def _diff(path: Path, old: str, new: str) -> str:
    lines = list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"{path} (written)", f"{path} (today)", n=1, lineterm=""
        )
    )
    shown = [line if len(line) < 400 else line[:400] + " [...]" for line in lines[:DIFF_LINES]]
    if len(lines) > DIFF_LINES:
        shown.append(f"... and {len(lines) - DIFF_LINES} more lines of difference")
    return "\n".join(shown)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(ENGINES), help="only this kind (default: every kind)")
    parser.add_argument("--check", action="store_true", help="write nothing; fail if a file would change")
    args = parser.parse_args()
    failed = False
    for kind in [args.kind] if args.kind else sorted(ENGINES):
        outcome = refresh(kind, check=args.check)
        for diff in outcome.refused:
            print(diff, file=sys.stderr)
        if outcome.refused:
            version = ENGINES[kind].rules_version
            print(
                f"{kind}: the golden logs would change under the same rules version {version}, so they are kept "
                "as they are. A change that alters past games needs a new rules version "
                f"(engines/{kind}/data.py); otherwise the change is a mistake.",
                file=sys.stderr,
            )
            failed = True
        elif args.check and outcome.written:
            print(f"{kind}: these files would be rewritten: {', '.join(outcome.written)}", file=sys.stderr)
            failed = True
        else:
            print(f"{kind}: " + (f"rewrote {', '.join(outcome.written)}" if outcome.written else "unchanged"))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
