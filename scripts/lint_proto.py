"""Lint proto/ with buf, and check it breaks nothing against the committed baseline
(npm @bufbuild/buf, installed in tools/ by scripts/bootstrap.sh).

    python scripts/lint_proto.py                     # the kinds' conventions, buf lint, then buf breaking
    python scripts/lint_proto.py --update-baseline   # buf lint, then rewrite the baseline

The baseline, proto/baseline.binpb, is a buf image of proto/ as last agreed: `buf
breaking` (its FILE rules: what breaks generated code, not only the wire) compares
proto/ with it, so a renamed field, a changed number or type, a removed message or RPC
fails the check. When a change is meant, move the baseline on with --update-baseline
in the same commit, and say so (a frontend's generated code then needs a change too).

Before buf, every kind's proto is checked against the conventions the service relies on
(scripts/genproto.py: its package, its Command's `action`, its Event's `game_stopped =
100`...), each one broken named with what to fix. The kinds' fields of the shared
envelopes are numbered by proto/kinds.lock.json, which never gives a number twice;
`buf breaking` then catches what the lock cannot (a kind's own messages changed).

buf resolves the google/api and google/rpc protos we import from .build/googleapis,
filled here from the installed googleapis-common-protos package, so it needs no network."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import google.api.annotations_pb2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts import genproto  # noqa: E402

BUF = ROOT / "tools" / "node_modules" / ".bin" / "buf"
BASELINE = ROOT / "proto" / "baseline.binpb"
GOOGLE_PROTOS = ("google/api/annotations.proto", "google/api/http.proto", "google/rpc/status.proto")


def prepare(workspace: Path = ROOT) -> None:
    """Copies the google protos that proto/ imports into the workspace's .build/googleapis."""
    googleapis = Path(google.api.annotations_pb2.__file__).resolve().parent.parent.parent
    for name in GOOGLE_PROTOS:
        target = workspace / ".build" / "googleapis" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(googleapis / name, target)


def breaking(workspace: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """buf breaking: the workspace's proto/ against the committed baseline."""
    command = [str(BUF), "breaking", "proto", "--against", str(BASELINE)]
    return subprocess.run(command, cwd=workspace, capture_output=True, text=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update-baseline", action="store_true", help="rewrite proto/baseline.binpb from proto/")
    args = parser.parse_args(argv)
    if not BUF.exists():
        print(f"{BUF} is missing: run scripts/bootstrap.sh (it runs npm ci in tools/)", file=sys.stderr)
        return 2
    _, problems = genproto.read_kinds()
    if problems:
        print("proto/: fix these first (docs/NEW_GAME.md says why):\n- " + "\n- ".join(problems), file=sys.stderr)
        return 1
    prepare()
    linted = subprocess.run([str(BUF), "lint"], cwd=ROOT).returncode
    if linted != 0:
        return linted
    if args.update_baseline:
        built = subprocess.run([str(BUF), "build", "proto", "--exclude-source-info", "-o", str(BASELINE)], cwd=ROOT)
        if built.returncode == 0:
            print(f"wrote {BASELINE.relative_to(ROOT)}: commit it with the proto change it accepts")
        return built.returncode
    if not BASELINE.exists():
        print(
            f"{BASELINE.relative_to(ROOT)} is missing: python scripts/lint_proto.py --update-baseline", file=sys.stderr
        )
        return 2
    checked = breaking()
    if checked.returncode != 0:
        print(
            f"{checked.stdout}{checked.stderr}proto/ breaks the API of {BASELINE.relative_to(ROOT)}. If that is "
            "meant, run: python scripts/lint_proto.py --update-baseline (and say so in the commit)",
            file=sys.stderr,
        )
    return checked.returncode


if __name__ == "__main__":
    raise SystemExit(main())
