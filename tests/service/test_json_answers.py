"""Answers as JSON (service/app/model/json_answers.py): the same bytes however a message's
maps were filled (a map's order is per process: its keys come out sorted), from a worker's
job as from the loop, in each transport's style; a finished export's JSON kept within the
export cache's bound (through a real server: tests/e2e/test_json_answers.py)."""

from __future__ import annotations

import json

from ludotheque.v1 import game_pb2

from service.app.logs.exports import ExportCache
from service.app.model.json_answers import STYLES, as_json, json_in_worker

KEYS = [f"arg{i * 37 % 101}" for i in range(60)]


def described(keys: list[str]) -> game_pb2.Event:
    event = game_pb2.Event()
    for key in keys:
        event.description.args[key].value = key.upper()
    return event


def test_a_maps_keys_come_out_sorted_however_it_was_filled() -> None:
    forward, backward = described(KEYS), described(KEYS[::-1])
    for style in STYLES:
        written = as_json(forward, style)
        assert written == as_json(backward, style)
        assert written == as_json(game_pb2.Event.FromString(backward.SerializeToString()), style)
        assert list(json.loads(written)["description"]["args"]) == sorted(KEYS)


def test_a_workers_job_writes_what_the_loop_writes_in_each_style() -> None:
    event = described(KEYS)
    name, data = event.DESCRIPTOR.full_name, event.SerializeToString()
    for style in STYLES:
        assert json_in_worker(name, data, style) == as_json(event, style)
    assert b'"version":"0"' in as_json(event, "rest")  # every field, present or not
    assert b'"version"' not in as_json(event, "connect")  # the compact mapping


def test_an_exports_json_is_kept_within_the_caches_bound() -> None:
    cache = ExportCache(100)
    cache.put("a", b"p" * 40)
    cache.json_of("a").put("rest", b"j" * 40)
    assert cache.json_of("a").get("rest") == b"j" * 40 and cache.json_of("a").get("connect") is None
    assert cache.get("a") == b"p" * 40  # (now the most recently served)
    cache.put("b", b"q" * 40)  # 120 bytes: the least recently served (a's JSON) dropped
    assert cache.json_of("a").get("rest") is None
    assert cache.get("a") == b"p" * 40 and cache.get("b") == b"q" * 40
    cache.json_of("b").put("connect", b"k" * 200)  # larger than the whole cache: not kept
    assert cache.json_of("b").get("connect") is None and cache.made == 2
