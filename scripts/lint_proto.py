"""Lint proto/ with buf (npm @bufbuild/buf, installed in tools/ by scripts/bootstrap.sh).

buf resolves google/api/annotations.proto from .build/googleapis, filled here from
the installed googleapis-common-protos package, so linting needs no network."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import google.api.annotations_pb2

ROOT = Path(__file__).resolve().parent.parent
BUF = ROOT / "tools" / "node_modules" / ".bin" / "buf"


def main() -> int:
    if not BUF.exists():
        print(f"{BUF} is missing: run scripts/bootstrap.sh (it runs npm ci in tools/)", file=sys.stderr)
        return 2
    source = Path(google.api.annotations_pb2.__file__).resolve().parent
    target = ROOT / ".build" / "googleapis" / "google" / "api"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("annotations.proto", "http.proto"):
        shutil.copyfile(source / name, target / name)
    return subprocess.run([str(BUF), "lint"], cwd=ROOT).returncode


if __name__ == "__main__":
    raise SystemExit(main())
