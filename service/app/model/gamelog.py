"""The portable game log: a header then every event, as JSON Lines or binary.

JSON Lines (the default, `.jsonl`): line 1 is the GameLogHeader, each later line one
Event, all in the proto3 JSON mapping. Binary (`--binary`): the same messages as
length-delimited protobuf (a varint length, then the bytes), header first. A reader
tells them apart by the first byte ("{" starts a JSON log)."""

from __future__ import annotations

import json
from typing import BinaryIO

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from ludotheque.v1 import game_pb2

FORMAT = "ludotheque-log/1"
# Events redacted between two hand-backs of the event loop while a log is exported
# (about 2 ms: a game may have thousands).
EXPORT_SLICE = 256


class LogFormatError(Exception):
    """A log that cannot be read: where, and why."""

    def __init__(self, position: str, reason: str) -> None:
        super().__init__(f"{position}: {reason}")
        self.position = position
        self.reason = reason


def header(record: game_pb2.GameRecord, viewer: game_pb2.Viewer) -> game_pb2.GameLogHeader:
    """The header of a game's log as `viewer` sees it (the admin's has the seed)."""
    made = game_pb2.GameLogHeader(
        format=FORMAT,
        game_id=record.game_id,
        kind=record.kind,
        rules_version=record.rules_version,
        options=record.options,
        seats=record.seats,
        created_at=record.created_at,
        viewer=viewer,
        clock=record.clock if record.HasField("clock") else None,
    )
    if viewer.role == game_pb2.VIEWER_ROLE_ADMIN:
        made.seed = record.seed  # what a verification or a continued import needs
    return made


def complete_log(record: game_pb2.GameRecord, events: list[game_pb2.Event]) -> game_pb2.GameLog:
    """The admin's log of a game: every event, unredacted, and the seed."""
    return game_pb2.GameLog(header=header(record, game_pb2.Viewer(role=game_pb2.VIEWER_ROLE_ADMIN)), events=events)


def to_jsonl(log: game_pb2.GameLog) -> str:
    lines = [_json_line(log.header), *(_json_line(event) for event in log.events)]
    return "".join(lines)


def _json_line(message: Message) -> str:
    return json.dumps(json_format.MessageToDict(message), ensure_ascii=False, separators=(",", ":")) + "\n"


def to_binary(log: game_pb2.GameLog) -> bytes:
    out = bytearray()
    for message in (log.header, *log.events):
        data = message.SerializeToString()
        out += _varint(len(data)) + data
    return bytes(out)


def write(log: game_pb2.GameLog, out: BinaryIO, *, binary: bool = False) -> None:
    out.write(to_binary(log) if binary else to_jsonl(log).encode())


def parse(data: bytes) -> game_pb2.GameLog:
    """A log in either format; raises LogFormatError naming the line or record."""
    if data.lstrip()[:1] == b"{":
        return parse_jsonl(data)
    return parse_binary(data)


def parse_jsonl(data: bytes) -> game_pb2.GameLog:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LogFormatError("the file", f"not UTF-8 ({error.reason} at byte {error.start})") from None
    log = game_pb2.GameLog()
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise LogFormatError("line 1", "the header is missing")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise LogFormatError(f"line {number}", "an empty line")
        target: Message = log.header if number == 1 else log.events.add()
        try:
            json_format.Parse(line, target)
        except json_format.ParseError as error:
            what = "the header" if number == 1 else "an event"
            raise LogFormatError(f"line {number}", f"not {what}: {error}") from None
    _check_format(log, "line 1")
    return log


def parse_binary(data: bytes) -> game_pb2.GameLog:
    log = game_pb2.GameLog()
    position, record = 0, 0
    while position < len(data):
        record += 1
        where = f"record {record} (byte {position})"
        length, position = _read_varint(data, position, where)
        if position + length > len(data):
            raise LogFormatError(where, f"truncated: {length} bytes announced, {len(data) - position} left")
        target: Message = log.header if record == 1 else log.events.add()
        try:
            target.ParseFromString(data[position : position + length])
        except DecodeError:
            raise LogFormatError(where, "not a valid message") from None
        position += length
    if record == 0:
        raise LogFormatError("record 1", "the header is missing")
    _check_format(log, "record 1")
    return log


def _check_format(log: game_pb2.GameLog, where: str) -> None:
    if log.header.format != FORMAT:
        raise LogFormatError(where, f"format {log.header.format!r} is not {FORMAT!r}")


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(data: bytes, position: int, where: str) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        if position >= len(data):
            raise LogFormatError(where, "truncated length")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
        if shift > 63:
            raise LogFormatError(where, "a length that is not a varint")
