"""Regenerate everything derived from proto/ (the one command).

    python scripts/genproto.py            # writes clients/python/src/ and service/openapi.json
    python scripts/genproto.py --check    # exits 1 when the committed files are stale

Messages are generated with protobuf's own generator, gRPC stubs with grpcio-tools,
typing stubs (.pyi) with mypy-protobuf so that mypy checks code using them, and the
OpenAPI document of the REST API from the descriptors and their comments.
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
OPENAPI = ROOT / "service" / "openapi.json"
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
    from service import openapi

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


def stale_files() -> list[str]:
    """The generated files that differ from what proto/ generates now."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        generate(fresh)
        expected = generated_files(fresh)
        committed = generated_files(PYTHON_OUT)
        stale = sorted(expected ^ committed)
        for name in sorted(expected & committed):
            if not filecmp.cmp(fresh / name, PYTHON_OUT / name, shallow=False):
                stale.append(name)
    if not OPENAPI.exists() or OPENAPI.read_text() != openapi_document():
        stale.append(str(OPENAPI.relative_to(ROOT)))
    return stale


def write() -> None:
    for root in generated_roots():
        shutil.rmtree(PYTHON_OUT / root, ignore_errors=True)
    generate(PYTHON_OUT)
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
