"""Where a report comes from: the command line that wrote it and the machine it ran on."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import subprocess
from importlib import metadata
from pathlib import Path


def command_line(args: argparse.Namespace) -> str:
    parts = ["ludotheque bench"]
    if args.quick:
        parts.append("--quick")
    if getattr(args, "versus", False):
        parts.append("--versus")
    if getattr(args, "attacks", False):
        parts.append("--attacks")
        if not args.quick and args.duration != 10.0:
            parts.append(f"--duration {args.duration:g}")
    if getattr(args, "bots_beside", False):
        parts.append("--bots-beside")
    if getattr(args, "capacity", False):
        parts.append("--capacity")
        if args.crowds != "64,1000,5000":
            parts.append(f"--crowds {args.crowds}")
    if args.output is not None:
        parts.append(f"--output {args.output}")
    return " ".join(parts)


def machine() -> list[tuple[str, str]]:
    model = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    redis_version = "not installed"
    if shutil.which("redis-server"):
        done = subprocess.run(["redis-server", "--version"], capture_output=True, text=True, check=False)
        redis_version = done.stdout.split(" v=")[1].split()[0] if " v=" in done.stdout else done.stdout.strip()
    load = os.getloadavg()
    return [
        ("CPUs (nproc)", str(os.cpu_count())),
        ("CPU model", model),
        ("Python", platform.python_version()),
        ("grpcio / protobuf", f"{metadata.version('grpcio')} / {metadata.version('protobuf')}"),
        ("redis-server", redis_version),
        ("kernel", platform.release()),
        ("load average before the run", f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"),
        ("date", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")),
    ]
