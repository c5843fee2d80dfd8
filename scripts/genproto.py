"""Regenerate everything derived from proto/ (the one command).

    python scripts/genproto.py            # writes clients/python/src/, clients/typescript/src/gen/
                                          # and service/api/openapi.json
    python scripts/genproto.py --check    # exits 1 when the committed files are stale

Messages are generated with protobuf's own generator, gRPC stubs with grpcio-tools,
typing stubs (.pyi) with mypy-protobuf so that mypy checks code using them, the
TypeScript messages and service with protoc-gen-es (from npm, installed in
clients/typescript/node_modules by scripts/bootstrap.sh; run by the same protoc, so
offline), and the OpenAPI document of the REST API from the descriptors and their comments.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
PYTHON_OUT = ROOT / "clients" / "python" / "src"
OPENAPI = ROOT / "service" / "api" / "openapi.json"
TYPESCRIPT_OUT = ROOT / "clients" / "typescript" / "src" / "gen"
PROTOC_GEN_ES = ROOT / "clients" / "typescript" / "node_modules" / ".bin" / "protoc-gen-es"
# Generated for TypeScript besides proto/: the google protos that proto/ imports
# (ES modules import their dependencies' generated files), and google.rpc's error
# details, so that ConnectError.findDetails can decode them.
TYPESCRIPT_EXTRA = [
    "google/api/annotations.proto",
    "google/api/http.proto",
    "google/rpc/status.proto",
    "google/rpc/error_details.proto",
]
SERVICE = "ludotheque.v1.GameService"
HEADER = '"""Generated from proto/ by scripts/genproto.py: do not edit."""\n'


def proto_files() -> list[str]:
    return sorted(str(p.relative_to(PROTO_DIR)) for p in PROTO_DIR.rglob("*.proto"))


def include_dirs() -> list[str]:
    """proto/, protobuf's well-known types and googleapis' google/api protos."""
    import google.api.annotations_pb2 as annotations
    import grpc_tools

    googleapis = Path(annotations.__file__).resolve().parent.parent.parent
    well_known = Path(grpc_tools.__file__).resolve().parent / "_proto"
    return [str(PROTO_DIR), str(well_known), str(googleapis)]


def generate(out_dir: Path) -> None:
    from grpc_tools import protoc

    plugin_dir = Path(sys.executable).parent
    args = [
        "protoc",
        *(f"-I{d}" for d in include_dirs()),
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--plugin=protoc-gen-mypy={plugin_dir / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={plugin_dir / 'protoc-gen-mypy_grpc'}",
        f"--mypy_out=quiet:{out_dir}",
        f"--mypy_grpc_out=quiet:{out_dir}",
        *proto_files(),
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for root in generated_roots():
        for directory in [out_dir / root, *(p for p in (out_dir / root).rglob("*") if p.is_dir())]:
            (directory / "__init__.py").write_text(HEADER)


def generate_typescript(out_dir: Path) -> None:
    from grpc_tools import protoc

    if not PROTOC_GEN_ES.exists():
        raise SystemExit(f"{PROTOC_GEN_ES} is missing: run scripts/bootstrap.sh (npm ci in clients/typescript)")
    args = [
        "protoc",
        *(f"-I{d}" for d in include_dirs()),
        f"--plugin=protoc-gen-es={PROTOC_GEN_ES}",
        f"--es_out={out_dir}",
        "--es_opt=target=ts,import_extension=js",
        *proto_files(),
        *TYPESCRIPT_EXTRA,
    ]
    out_dir.mkdir(parents=True, exist_ok=True)
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed (TypeScript)")


def generated_roots() -> list[str]:
    """The generated trees: ludotheque/v1, ludotheque/mooki... (ludotheque/ itself
    holds the client's own modules and is not generated)."""
    return sorted({"/".join(Path(f).parts[:2]) for f in proto_files()})


def generated_files(base: Path) -> set[str]:
    return {
        str(p.relative_to(base))
        for root in generated_roots()
        for p in (base / root).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def openapi_document() -> str:
    """The OpenAPI document, from descriptors built with their comments."""
    from google.protobuf import descriptor_pb2, descriptor_pool
    from grpc_tools import protoc

    sys.path.insert(0, str(ROOT))
    from service.api import openapi

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "descriptors.pb"
        args = ["protoc", *(f"-I{d}" for d in include_dirs()), f"--descriptor_set_out={out}"]
        if protoc.main([*args, "--include_source_info", "--include_imports", *proto_files()]) != 0:
            raise SystemExit("protoc failed")
        descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_set.file:
        pool.Add(file)
    service = pool.FindServiceByName(SERVICE)
    document = openapi.render(service, openapi.comments(descriptor_set), version="v1")
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _differences(fresh: Path, committed: Path, expected: set[str], present: set[str]) -> list[str]:
    """The files of `committed` missing, extra or different from those of `fresh`."""
    stale = sorted(expected ^ present)
    for name in sorted(expected & present):
        if not filecmp.cmp(fresh / name, committed / name, shallow=False):
            stale.append(name)
    return [str((committed / name).relative_to(ROOT)) for name in stale]


def _all_files(base: Path) -> set[str]:
    return {str(p.relative_to(base)) for p in base.rglob("*") if p.is_file()} if base.exists() else set()


def stale_files() -> list[str]:
    """The generated files that differ from what proto/ generates now."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "python"
        fresh.mkdir()
        generate(fresh)
        stale = _differences(fresh, PYTHON_OUT, generated_files(fresh), generated_files(PYTHON_OUT))
        fresh_ts = Path(tmp) / "typescript"
        generate_typescript(fresh_ts)
        stale += _differences(fresh_ts, TYPESCRIPT_OUT, _all_files(fresh_ts), _all_files(TYPESCRIPT_OUT))
    if not OPENAPI.exists() or OPENAPI.read_text() != openapi_document():
        stale.append(str(OPENAPI.relative_to(ROOT)))
    return stale


def write() -> None:
    for root in generated_roots():
        shutil.rmtree(PYTHON_OUT / root, ignore_errors=True)
    generate(PYTHON_OUT)
    shutil.rmtree(TYPESCRIPT_OUT, ignore_errors=True)
    generate_typescript(TYPESCRIPT_OUT)
    OPENAPI.write_text(openapi_document())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.check:
        stale = stale_files()
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        if stale:
            print("run: python scripts/genproto.py", file=sys.stderr)
        return 1 if stale else 0
    write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
