"""Regenerate everything derived from proto/ (the one command).

    python scripts/genproto.py            # writes the envelopes' kinds (below), then
                                          # clients/python/src/, clients/typescript/src/gen/
                                          # and service/api/openapi.json
    python scripts/genproto.py --check    # exits 1 when a committed file is stale

First the envelopes: every kind of game has its messages in proto/ludotheque/<kind>/v1/
(docs/NEW_GAME.md), and the service's shared messages have one field per kind, written
here and nowhere else: the oneofs of GameOptions, Command, GameView and Event
(ludotheque/v1/game.proto) and of GameKind's material (game_kind.proto), EventRun's
repeated fields (event_run.proto), and the imports they need. Each field's number comes
from proto/kinds.lock.json: a kind seen for the first time is given the next free
numbers, pinned there, and a number once given is never given again, not even when its
kind is gone (buf breaking, scripts/lint_proto.py, guards the rest). A kind's proto
must follow the conventions the service relies on; each one broken is named, with what
to change (`conventions`).

Then the code: messages with protobuf's own generator, gRPC stubs with grpcio-tools,
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
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
LOCK = "kinds.lock.json"  # in proto/
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
SHARED_PACKAGES = ("v1", "text")  # proto/ludotheque/<these>/ are the service's; every other folder is a kind
KIND_NAME = re.compile(r"[a-z][a-z0-9]*")  # as engines/registry.py takes it


# --- the kinds and their conventions ------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """What the envelopes need of one kind's proto: its name, the game's title (its
    package comment's first words, before the colon), and per message name the file
    that defines it and its leading comment."""

    name: str
    title: str
    files: dict[str, str]  # message name -> file (ludotheque/<kind>/v1/<file>.proto)
    comments: dict[str, str]  # message name -> leading comment, without the slashes


@dataclass(frozen=True)
class Envelope:
    """One shared message with a field per kind: `oneof` (None: a repeated field per
    kind, EventRun) holds the kind's message `holds`, numbered by the lock's `numbered`."""

    file: str
    message: str
    oneof: str | None
    holds: str
    numbered: str
    comment: Callable[[Kind], str]


ENVELOPES = (
    Envelope("ludotheque/v1/game.proto", "GameOptions", "game", "Options", "GameOptions", lambda k: f"{k.title}."),
    Envelope("ludotheque/v1/game.proto", "Command", "game", "Command", "Command", lambda k: k.comments["Command"]),
    Envelope("ludotheque/v1/game.proto", "GameView", "game", "View", "GameView", lambda k: k.comments["View"]),
    Envelope("ludotheque/v1/game.proto", "Event", "game", "Event", "Event", lambda k: k.comments["Event"]),
    Envelope(
        "ludotheque/v1/event_run.proto",
        "EventRun",
        None,
        "Event",
        "Event",  # EventRun gathers Event's fields: the same numbers
        lambda k: f"The {_each(k.comments['Event'], 'event')} (Event.{k.name}), in order.",
    ),
    Envelope(
        "ludotheque/v1/game_kind.proto",
        "GameKind",
        "material",
        "Material",
        "GameKind",
        lambda k: k.comments["Material"],
    ),
)
REQUIRED = ("Options", "Command", "Event", "View", "Material")  # the messages every kind defines


def _each(comment: str, noun: str) -> str:
    """ "A Mooki Island event." -> "Mooki Island events" (else "<noun>s of the kind")."""
    found = re.fullmatch(rf"An? (.+) {noun}\.", comment.strip())
    return f"{found.group(1)} {noun}s" if found else f"{noun}s of the kind"


def kind_names(proto_dir: Path = PROTO_DIR) -> list[str]:
    """The kinds under proto/ludotheque/: every folder but the service's own."""
    base = proto_dir / "ludotheque"
    return sorted(p.name for p in base.iterdir() if p.is_dir() and p.name not in SHARED_PACKAGES)


def _descriptors(proto_dir: Path, files: list[str]) -> Any:
    """The FileDescriptorSet of `files`, with their comments."""
    from google.protobuf import descriptor_pb2
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "kinds.pb"
        args = ["protoc", *(f"-I{d}" for d in include_dirs(proto_dir)), f"--descriptor_set_out={out}"]
        if protoc.main([*args, "--include_source_info", *files]) != 0:
            raise SystemExit("protoc failed on the kinds' protos (above: the file and line)")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _comment(file: Any, path: list[int]) -> str:
    for location in file.source_code_info.location:
        if list(location.path) == path:
            return "\n".join(line.removeprefix(" ") for line in location.leading_comments.rstrip("\n").split("\n"))
    return ""


def read_kinds(proto_dir: Path = PROTO_DIR) -> tuple[list[Kind], list[str]]:
    """Every kind under proto/, and what each breaks of the conventions (docs/NEW_GAME.md)."""
    kinds, problems = [], []
    seat_option = _seat_option(proto_dir)
    grid_option = _grid_option(proto_dir)
    for name in kind_names(proto_dir):
        folder = f"proto/ludotheque/{name}/v1/"
        if not KIND_NAME.fullmatch(name):
            problems.append(f"proto/ludotheque/{name}/: a kind's name is lower-case letters and digits, a letter first")
            continue
        files = sorted(str(p.relative_to(proto_dir)) for p in (proto_dir / "ludotheque" / name / "v1").glob("*.proto"))
        main = f"ludotheque/{name}/v1/{name}.proto"
        if main not in files:
            problems.append(f"{folder}{name}.proto is missing: a kind's Options, Command, Event and View are there")
            continue
        descriptors = _descriptors(proto_dir, files)
        kind, broken = _read_kind(name, descriptors, main)
        broken += _seat_mark_problems(descriptors, seat_option)
        broken += _grid_mark_problems(descriptors, grid_option)
        problems += broken
        if not broken:
            kinds.append(kind)
    return kinds, problems


def _read_kind(name: str, descriptors: Any, main: str) -> tuple[Kind, list[str]]:
    package = f"ludotheque.{name}.v1"
    problems, where, comments, messages, enums = [], {}, {}, {}, {}
    title = ""
    for file in descriptors.file:
        if file.package != package:
            problems.append(f"proto/{file.name}: its package must be {package} (the kind's name), not {file.package}")
        enums.update({f".{file.package}.{e.name}": {v.name for v in e.value} for e in file.enum_type})
        for index, message in enumerate(file.message_type):
            enums.update(
                {f".{file.package}.{message.name}.{e.name}": {v.name for v in e.value} for e in message.enum_type}
            )
            if message.name in REQUIRED and (file.name == main or message.name == "Material"):
                where[message.name], messages[message.name] = file.name, message
                comments[message.name] = _comment(file, [4, index])
        if file.name == main:
            first = _comment(file, [2]).split("\n", 1)[0]
            title = first.split(":", 1)[0].strip() if ":" in first else ""
            if not title:
                problems.append(
                    f"proto/{main}: open its package comment with the game's name and a colon, e.g. "
                    "`// High Card: a trick game for 2 to 4 players...` (the envelopes name the game so)"
                )
    for message in REQUIRED:
        home = f"proto/{main}" if message != "Material" else f"proto/ludotheque/{name}/v1/ (material.proto)"
        if message not in messages:
            problems.append(f"{home}: define message {message} (every kind has one: docs/NEW_GAME.md)")
        elif not comments[message]:
            problems.append(f"proto/{where[message]}: message {message} needs a leading comment (the envelopes use it)")
    problems += _shape_problems(f"proto/{main}", messages, enums)
    return Kind(name, title, where, comments), problems


SEAT_FIELD = "ludotheque/text/v1/seat_field.proto"  # the option a field holding seats is marked with
GRID = "ludotheque/text/v1/grid.proto"  # the option a field laid out as a grid is marked with
INTEGERS = {"TYPE_INT32", "TYPE_INT64", "TYPE_UINT32", "TYPE_UINT64", "TYPE_SINT32", "TYPE_SINT64"}
INTEGERS |= {"TYPE_FIXED32", "TYPE_FIXED64", "TYPE_SFIXED32", "TYPE_SFIXED64"}


def _seat_option(proto_dir: Path) -> tuple[int, dict[int, str]]:
    """The number of the `(ludotheque.text.v1.seat)` option and its values' names, from its proto."""
    (file,) = _descriptors(proto_dir, [SEAT_FIELD]).file
    (option,) = file.extension
    (values,) = file.enum_type
    return option.number, {value.number: value.name for value in values.value}


def _grid_option(proto_dir: Path) -> int:
    """The number of the `(ludotheque.text.v1.grid_columns)` option, from its proto."""
    (file,) = _descriptors(proto_dir, [GRID]).file
    (option,) = file.extension
    return int(option.number)


def _marked_fields(descriptors: Any, number: int) -> list[tuple[str, Any, int]]:
    """Every field of the kind's messages (nested ones too) that carries the field
    option numbered `number`: (where it is, the field, the option's value)."""
    from google.protobuf import empty_pb2
    from google.protobuf.unknown_fields import UnknownFieldSet

    found = []

    def look(file: Any, message: Any, path: str) -> None:
        for field in message.field:
            # Read as Empty's unknown fields: known as an extension or not (whether this
            # process imported the generated option), the option's bytes are the same.
            unknown = UnknownFieldSet(empty_pb2.Empty.FromString(field.options.SerializeToString()))
            marks = [unknown[at].data for at in range(len(unknown)) if unknown[at].field_number == number]
            if marks:
                found.append((f"proto/{file.name}: {path}{message.name}.{field.name}", field, marks[-1]))
        for nested in message.nested_type:
            look(file, nested, f"{path}{message.name}.")

    for file in descriptors.file:
        for message in file.message_type:
            look(file, message, "")
    return found


def _seat_mark_problems(descriptors: Any, option: tuple[int, dict[int, str]]) -> list[str]:
    """A field marked as holding seats must hold seat numbers: integers, and repeated
    when it has one value per seat (the web app shows other marks as unmarked)."""
    number, names = option
    problems = []
    for where, field, value in _marked_fields(descriptors, number):
        mark, kind = names.get(value, str(value)), field.Type.Name(field.type)
        if kind not in INTEGERS:
            problems.append(f"{where} is marked {mark}, but a seat is a number: make it uint32 or drop the mark")
        elif mark == "SEAT_FIELD_BY_SEAT" and field.label != field.LABEL_REPEATED:
            problems.append(f"{where} is marked SEAT_FIELD_BY_SEAT (one value per seat): make it repeated")
        elif mark not in ("SEAT_FIELD_SEAT", "SEAT_FIELD_BY_SEAT"):
            problems.append(f"{where} is marked {mark}: use SEAT_FIELD_SEAT or SEAT_FIELD_BY_SEAT")
    return problems


def _grid_mark_problems(descriptors: Any, number: int) -> list[str]:
    """A field laid out as a grid is a repeated field of integers or enums, of one
    column at least (the web app draws other marks as a plain list)."""
    problems = []
    for where, field, columns in _marked_fields(descriptors, number):
        kind = field.Type.Name(field.type)
        if field.label != field.LABEL_REPEATED or (kind not in INTEGERS and kind != "TYPE_ENUM"):
            problems.append(f"{where} is marked grid_columns, but a grid is a repeated field of integers or enums")
        elif columns < 1:
            problems.append(f"{where} is marked grid_columns = 0: give the grid's number of columns")
    return problems


def _shape_problems(main: str, messages: dict[str, Any], enums: dict[str, set[str]]) -> list[str]:
    """What the service reads of every kind's Command, Event and View by name."""
    problems = []
    command, event, view = (messages.get(name) for name in ("Command", "Event", "View"))
    if command is not None and [o.name for o in command.oneof_decl] != ["action"]:
        problems.append(
            f"{main}: Command's moves are one oneof, named `action` (oneof action {{ Draw draw = 1; ... }})"
        )
    if event is not None:
        if [o.name for o in event.oneof_decl] != ["kind"]:
            problems.append(f"{main}: Event's events are one oneof, named `kind` (oneof kind {{ ... }})")
        stopped = [f for f in event.field if f.name == "game_stopped"]
        if not stopped or stopped[0].number != 100 or not stopped[0].HasField("oneof_index"):
            problems.append(
                f"{main}: Event's oneof kind needs `GameStopped game_stopped = 100;` (the server stops a game "
                "at its event limit with it: engines/limits.py), whose message has `uint32 event_limit = 1;`"
            )
    if view is not None:
        fields = {f.name: f for f in view.field}
        phase = fields.get("phase")
        if phase is None or "PHASE_FINISHED" not in enums.get(phase.type_name, set()):
            problems.append(f"{main}: View needs `Phase phase`, an enum with a value PHASE_FINISHED (a game over)")
        seat = fields.get("active_seat")
        if seat is None or seat.type != seat.TYPE_UINT32 or not seat.proto3_optional:
            problems.append(
                f"{main}: View needs `optional uint32 active_seat = 2;`, the seat expected to act, unset when "
                "nobody is (the clients' sessions and the web app read it)"
            )
        if "stopped" not in fields or not fields["stopped"].type_name.endswith(".GameStopped"):
            problems.append(f"{main}: View needs `GameStopped stopped = 100;` (set once the server stopped the game)")
    return problems


# --- the lock: each kind's numbers, never reused ------------------------------------


def read_lock(proto_dir: Path = PROTO_DIR) -> dict[str, dict[str, int]]:
    path = proto_dir / LOCK
    return json.loads(path.read_text())["kinds"] if path.exists() else {}


LOCK_ABOUT = (
    "Each game kind's field number in each of the service's envelopes, as scripts/genproto.py "
    "gave them (do not edit): a kind seen for the first time gets the next free numbers, and "
    "a number once given is never given again, even when its kind is gone."
)


def lock_text(kinds: dict[str, dict[str, int]]) -> str:
    """The lock, one line per kind, in the order the kinds came."""
    lines = [f"    {json.dumps(kind)}: {json.dumps(numbers)}" for kind, numbers in kinds.items()]
    return (
        f'{{\n  "about": {json.dumps(LOCK_ABOUT, ensure_ascii=False)},\n  "kinds": {{\n'
        + ",\n".join(lines)
        + "\n  }\n}\n"
    )


def _hand_written_numbers(text: str, message: str, oneof: str | None) -> dict[int, str]:
    """The numbers of the fields of `message` that this script does not write."""
    body = _message_body(text, message)
    region = _kind_region(body, oneof)
    outside = "\n".join(line.split("//", 1)[0] for line in (body[: region[0]] + body[region[1] :]).splitlines())
    fields = re.findall(r"^\s*[\w.<>, ]+?\s(\w+)\s*=\s*(\d+)\s*;", outside, re.M)
    return {int(number): name for name, number in fields}


def allocate(kinds: list[Kind], lock: dict[str, dict[str, int]], proto_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """The lock with numbers for every kind (new ones appended), and the numbers the
    service's own fields would take from a kind (each a problem)."""
    taken: dict[str, dict[int, str]] = {}  # per numbering (Event's: Event's and EventRun's own fields)
    for envelope in ENVELOPES:
        text = (proto_dir / envelope.file).read_text()
        own = taken.setdefault(envelope.numbered, {})
        own.update(_hand_written_numbers(text, envelope.message, envelope.oneof))
    problems = [
        f"{numbering}: field {name} = {number} takes the number proto/{LOCK} gives kind {kind}"
        for numbering, own in taken.items()
        for number, name in own.items()
        for kind, numbers in lock.items()
        if numbers.get(numbering) == number
    ]
    result = {kind: dict(numbers) for kind, numbers in lock.items()}
    for kind in sorted(k.name for k in kinds if k.name not in lock):
        fresh: dict[str, int] = {}
        for numbering, own in taken.items():
            given = {numbers[numbering] for numbers in result.values() if numbering in numbers}
            number = max(given, default=0) + 1
            while number in own or number in given or 19000 <= number <= 19999:  # 19000s: protobuf's own
                number += 1
            fresh[numbering] = number
        result[kind] = fresh
    return result, problems


# --- writing the envelopes ----------------------------------------------------------


def _message_span(text: str, message: str) -> tuple[int, int]:
    """Where `message`'s body lies in `text` (between its braces)."""
    found = re.search(rf"^message {message} \{{\n", text, re.M)
    if found is None:
        raise SystemExit(f"no message {message} in the shared protos: scripts/genproto.py writes its kinds")
    depth, position = 1, found.end()
    for line in text[found.end() :].splitlines(keepends=True):
        code = line.split("//", 1)[0]
        depth += code.count("{") - code.count("}")
        if depth == 0:
            return found.end(), position
        position += len(line)
    raise SystemExit(f"message {message} has no end")


def _message_body(text: str, message: str) -> str:
    start, end = _message_span(text, message)
    return text[start:end]


def _kind_region(body: str, oneof: str | None) -> tuple[int, int]:
    """Where the kinds' fields lie in a message's body: the whole of the oneof, or the
    run of repeated fields of kinds' messages and their comments."""
    if oneof is not None:
        found = re.search(rf"^\s*oneof {oneof} \{{\n", body, re.M)
        if found is None:
            raise SystemExit(f"no oneof {oneof}: scripts/genproto.py writes its fields")
        closing = re.compile(r"^\s*\}\n", re.M).search(body, found.end())
        assert closing is not None
        return found.end(), closing.start()
    fields = list(re.finditer(r"^\s*repeated ludotheque\.(?!v1\.|text\.)\w+\.v1\.\w+ \w+ = \d+;\n", body, re.M))
    if not fields:
        raise SystemExit("no field of a kind to write in EventRun")
    start = fields[0].start()
    while start > 0:  # the comment above the first field belongs to it
        previous = body.rfind("\n", 0, start - 1) + 1
        if not body[previous:start].strip().startswith("//"):
            break
        start = previous
    return start, fields[-1].end()


def _field_lines(envelope: Envelope, kinds: list[Kind], numbers: dict[str, Any], indent: str) -> str:
    lines = []
    for kind in sorted(kinds, key=lambda k: numbers[k.name][envelope.numbered]):
        lines += [f"{indent}// {line}".rstrip() for line in envelope.comment(kind).splitlines()]
        label = "" if envelope.oneof else "repeated "
        field = (
            f"{label}ludotheque.{kind.name}.v1.{envelope.holds} {kind.name} = {numbers[kind.name][envelope.numbered]};"
        )
        lines.append(indent + field)
    return "".join(line + "\n" for line in lines)


def _imports(text: str, needed: list[str]) -> str:
    """`text` importing `needed` (in order) where it imported the kinds' files."""
    kind_import = re.compile(r'^import "ludotheque/(?!v1/|text/)\w+/v1/\w+\.proto";\n', re.M)
    first = kind_import.search(text)
    if first is None:
        first = re.search(r'^import "ludotheque/', text, re.M)
        assert first is not None, "the shared protos import ludotheque's own"
    head, tail = text[: first.start()], kind_import.sub("", text[first.start() :])
    return head + "".join(f'import "{name}";\n' for name in needed) + tail


def envelope_texts(kinds: list[Kind], numbers: dict[str, Any], proto_dir: Path) -> dict[str, str]:
    """Each shared proto's text with the kinds' fields and imports written in."""
    texts: dict[str, str] = {}
    order = [k for name in numbers for k in kinds if k.name == name]  # as they came, by the lock
    for envelope in ENVELOPES:
        text = texts.get(envelope.file) or (proto_dir / envelope.file).read_text()
        start, end = _message_span(text, envelope.message)
        body = text[start:end]
        region = _kind_region(body, envelope.oneof)
        indent = "    " if envelope.oneof else "  "
        body = body[: region[0]] + _field_lines(envelope, kinds, numbers, indent) + body[region[1] :]
        texts[envelope.file] = text[:start] + body + text[end:]
    for file in texts:
        needed = [k.files[e.holds] for k in order for e in ENVELOPES if e.file == file]
        texts[file] = _imports(texts[file], list(dict.fromkeys(needed)))
    return texts


def envelopes(proto_dir: Path = PROTO_DIR) -> dict[str, str]:
    """What the kinds under `proto_dir` make of the shared protos and of the lock
    (file, relative to proto/ -> text). Exits naming every convention broken."""
    kinds, problems = read_kinds(proto_dir)
    lock = read_lock(proto_dir)
    numbers, clashes = allocate(kinds, lock, proto_dir)
    if problems or clashes:
        raise SystemExit("proto/: fix these first (docs/NEW_GAME.md says why):\n- " + "\n- ".join(problems + clashes))
    return {**envelope_texts(kinds, numbers, proto_dir), LOCK: lock_text(numbers)}


# --- the code ----------------------------------------------------------------------


def proto_files(proto_dir: Path = PROTO_DIR) -> list[str]:
    return sorted(str(p.relative_to(proto_dir)) for p in proto_dir.rglob("*.proto"))


def include_dirs(proto_dir: Path = PROTO_DIR) -> list[str]:
    """proto/, protobuf's well-known types and googleapis' google/api protos."""
    import google.api.annotations_pb2 as annotations
    import grpc_tools

    googleapis = Path(annotations.__file__).resolve().parent.parent.parent
    well_known = Path(grpc_tools.__file__).resolve().parent / "_proto"
    return [str(proto_dir), str(well_known), str(googleapis)]


def generate(out_dir: Path, proto_dir: Path = PROTO_DIR) -> None:
    from grpc_tools import protoc

    plugin_dir = Path(sys.executable).parent
    args = [
        "protoc",
        *(f"-I{d}" for d in include_dirs(proto_dir)),
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--plugin=protoc-gen-mypy={plugin_dir / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={plugin_dir / 'protoc-gen-mypy_grpc'}",
        f"--mypy_out=quiet:{out_dir}",
        f"--mypy_grpc_out=quiet:{out_dir}",
        *proto_files(proto_dir),
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for root in generated_roots(proto_dir):
        for directory in [out_dir / root, *(p for p in (out_dir / root).rglob("*") if p.is_dir())]:
            (directory / "__init__.py").write_text(HEADER)


def generate_typescript(out_dir: Path, proto_dir: Path = PROTO_DIR) -> None:
    from grpc_tools import protoc

    if not PROTOC_GEN_ES.exists():
        raise SystemExit(f"{PROTOC_GEN_ES} is missing: run scripts/bootstrap.sh (npm ci in clients/typescript)")
    args = [
        "protoc",
        *(f"-I{d}" for d in include_dirs(proto_dir)),
        f"--plugin=protoc-gen-es={PROTOC_GEN_ES}",
        f"--es_out={out_dir}",
        "--es_opt=target=ts,import_extension=js",
        *proto_files(proto_dir),
        *TYPESCRIPT_EXTRA,
    ]
    out_dir.mkdir(parents=True, exist_ok=True)
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed (TypeScript)")


def generated_roots(proto_dir: Path = PROTO_DIR) -> list[str]:
    """The generated trees: ludotheque/v1, ludotheque/mooki... (ludotheque/ itself
    holds the client's own modules and is not generated)."""
    return sorted({"/".join(Path(f).parts[:2]) for f in proto_files(proto_dir)})


def generated_files(base: Path, proto_dir: Path = PROTO_DIR) -> set[str]:
    return {
        str(p.relative_to(base))
        for root in generated_roots(proto_dir)
        for p in (base / root).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def openapi_document(proto_dir: Path = PROTO_DIR) -> str:
    """The OpenAPI document, from descriptors built with their comments."""
    from google.protobuf import descriptor_pb2, descriptor_pool
    from grpc_tools import protoc

    sys.path.insert(0, str(ROOT))
    from service.api import openapi

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "descriptors.pb"
        args = ["protoc", *(f"-I{d}" for d in include_dirs(proto_dir)), f"--descriptor_set_out={out}"]
        if protoc.main([*args, "--include_source_info", "--include_imports", *proto_files(proto_dir)]) != 0:
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


@dataclass
class Fresh:
    """proto/ as it should be, in a temporary copy, and what it generates."""

    proto: Path
    written: dict[str, str]  # the envelopes and the lock: file (in proto/) -> text

    def stale_protos(self) -> Iterator[str]:
        for name, text in self.written.items():
            path = PROTO_DIR / name
            if not path.exists() or path.read_text() != text:
                yield str(path.relative_to(ROOT))


def fresh_proto(tmp: Path) -> Fresh:
    proto = tmp / "proto"
    shutil.copytree(PROTO_DIR, proto)
    written = envelopes(proto)
    for name, text in written.items():
        (proto / name).write_text(text)
    return Fresh(proto, written)


def stale_files() -> list[str]:
    """The files (shared protos, lock, generated code) that differ from what proto/'s
    kinds make and generate now."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = fresh_proto(Path(tmp))
        stale = list(fresh.stale_protos())
        python = Path(tmp) / "python"
        python.mkdir()
        generate(python, fresh.proto)
        expected = generated_files(python, fresh.proto)
        stale += _differences(python, PYTHON_OUT, expected, generated_files(PYTHON_OUT, fresh.proto))
        fresh_ts = Path(tmp) / "typescript"
        generate_typescript(fresh_ts, fresh.proto)
        stale += _differences(fresh_ts, TYPESCRIPT_OUT, _all_files(fresh_ts), _all_files(TYPESCRIPT_OUT))
        if not OPENAPI.exists() or OPENAPI.read_text() != openapi_document(fresh.proto):
            stale.append(str(OPENAPI.relative_to(ROOT)))
    return stale


def write() -> None:
    for name, text in envelopes().items():
        (PROTO_DIR / name).write_text(text)
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
