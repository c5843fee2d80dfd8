"""Lint proto/ with buf (npm @bufbuild/buf, installed in tools/ by scripts/bootstrap.sh).

buf resolves the google/api and google/rpc protos we import from .build/googleapis,
filled here from the installed googleapis-common-protos package, so linting needs no
network."""

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
    googleapis = Path(google.api.annotations_pb2.__file__).resolve().parent.parent.parent
    for name in ("google/api/annotations.proto", "google/api/http.proto", "google/rpc/status.proto"):
        target = ROOT / ".build" / "googleapis" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(googleapis / name, target)
    return subprocess.run([str(BUF), "lint"], cwd=ROOT).returncode


if __name__ == "__main__":
    raise SystemExit(main())
