"""Every game describes itself completely: each event and command kind of its proto has
a description, each rule code its rules raise is listed, each message key any
description, option, preset, rule or piece uses is in every catalog (seeds/locales/ and
seeds/<kind>/locales/)
with the same placeholders, and the choice steps of the legal commands tell each one
apart, in random games of every kind. So does the table around every game: each kind
of table event (a player joined, a turn timed out...) and each refusal of a table
change."""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from ludotheque.text.v1.description_pb2 import Description
from ludotheque.v1 import game_pb2

from engines.contract import SeatInfo, Viewer, fold
from engines.describers import DESCRIBERS
from engines.phrases import Arg, ListArg, NumberArg, Phrase, StepRole, phrase
from engines.registry import GAMES, AnyEngine
from service.app.model.errors import Code
from service.app.model.table import REFUSALS, refusal_key
from service.app.views.descriptions import LOSS_KEYS, TABLE_EVENT_KINDS, table_phrase
from service.app.views.kinds import game_kind
from service.app.words.catalogs import DEFAULT_LOCALE, Catalog, Catalogs, catalog_files, catalogs, placeholders
from tests.support.kinds import EVERY_ENGINE as ENGINES
from tests.support.kinds import EVERY_KIND, varied_options

ROOT = Path(__file__).resolve().parents[2]
KINDS = EVERY_KIND
# Options that make each game's moves many and varied (routes, calls, colours): each
# registration's (engines/<kind>/proof.py), else the defaults.
VARIED = {kind: varied_options(kind) for kind in KINDS}


@pytest.mark.parametrize("kind", KINDS)
def test_every_event_and_command_of_the_proto_has_a_description(kind: str) -> None:
    engine, describer = ENGINES[kind], DESCRIBERS[kind]
    events = {field.name for field in engine.event_type.DESCRIPTOR.oneofs_by_name["kind"].fields}
    commands = {field.name for field in engine.command_type.DESCRIPTOR.oneofs_by_name["action"].fields}
    assert events - describer.event_kinds == set(), f"events without a description in engines/{kind}/describe.py"
    assert commands - describer.command_kinds == set(), f"commands without a description in engines/{kind}/describe.py"


# One of each table event, in every form its description takes.
TABLE_EVENTS = [
    game_pb2.TableEvent(joined=game_pb2.SeatJoined(seat=1, name="Robin", age=4)),
    game_pb2.TableEvent(joined=game_pb2.SeatJoined(seat=1, name="Greedy bot", bot="greedy")),
    game_pb2.TableEvent(left=game_pb2.SeatLeft(seat=1, name="Robin")),
    game_pb2.TableEvent(left=game_pb2.SeatLeft(seat=1)),
    game_pb2.TableEvent(timed_out=game_pb2.TurnTimedOut(seat=0, missed_turns=1)),
    game_pb2.TableEvent(timed_out=game_pb2.TurnTimedOut(seat=0, missed_turns=3)),
    game_pb2.TableEvent(
        taken_over=game_pb2.SeatTakenOver(seat=0, bot="random", reason=game_pb2.TAKE_OVER_REASON_REQUESTED)
    ),
    game_pb2.TableEvent(
        taken_over=game_pb2.SeatTakenOver(seat=0, bot="greedy", reason=game_pb2.TAKE_OVER_REASON_MISSED_TURNS)
    ),
    game_pb2.TableEvent(handed_back=game_pb2.SeatHandedBack(seat=0)),
    game_pb2.TableEvent(),  # says nothing: verify refuses it in a log, but words are ready
]


def test_every_table_event_has_a_description() -> None:
    kinds = {field.name for field in game_pb2.TableEvent.DESCRIPTOR.oneofs_by_name["change"].fields}
    assert kinds == TABLE_EVENT_KINDS, "describe every table event in service/app/views/descriptions.py"
    described = {str(event.WhichOneof("change")) for event in TABLE_EVENTS if event.WhichOneof("change")}
    assert described == kinds
    for event in TABLE_EVENTS[:-1]:
        assert table_phrase(event).key != "table.unknown", event


def test_every_table_refusal_the_service_raises_is_listed() -> None:
    raised = set()
    for path in (ROOT / "service" / "app").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "refusal" and node.args:
                first = node.args[0]
                assert isinstance(first, ast.Constant), f"{path}: a refusal's reason must be a literal"
                raised.add(str(first.value))
    assert raised == set(REFUSALS), "update REFUSALS in service/app/model/table.py"


def raised_rule_codes(kind: str) -> set[str]:
    """The codes of every RuleViolation(...) in the game's engine sources."""
    codes = set()
    for path in (ROOT / "engines" / kind).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "RuleViolation" and node.args:
                first = node.args[0]
                assert isinstance(first, ast.Constant), f"{path}: a rule code must be a literal"
                codes.add(str(first.value))
    return codes


@pytest.mark.parametrize("kind", KINDS)
def test_every_rule_code_the_rules_raise_is_listed(kind: str) -> None:
    assert set(DESCRIBERS[kind].rule_codes) == raised_rule_codes(kind), (
        f"update RULE_CODES in engines/{kind}/describe.py"
    )


def phrase_keys(phrase: Phrase) -> Iterator[str]:
    yield phrase.key
    for _, arg in phrase.args:
        yield from arg_keys(arg)


def arg_keys(arg: Arg) -> Iterator[str]:
    if isinstance(arg, Phrase):
        yield from phrase_keys(arg)
    elif isinstance(arg, ListArg):
        for item in arg.items:
            yield from phrase_keys(item)


def message_keys(message: Message) -> Iterator[str]:
    """Every Description key in a message."""
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None or descriptor.message_type.GetOptions().map_entry:
            continue
        for item in value if descriptor.is_repeated else (value,):
            if descriptor.message_type is Description.DESCRIPTOR:
                yield item.key
            else:
                yield from message_keys(item)


def random_games(kind: str, games: int, steps: int = 250) -> Iterator[tuple[AnyEngine, Any, list[Message]]]:
    """(engine, state, events so far) at every step of random games of `kind` (the
    first `steps` moves of each: random Pirates games run to thousands)."""
    engine = ENGINES[kind]
    for options in VARIED[kind]:
        for seed in range(games):
            rng = random.Random(seed)
            seats = [SeatInfo(age=30 + i) for i in range(max(engine.min_seats, min(3, engine.max_seats)))]
            events = list(engine.setup(engine.resolve_options(options, seats), seats, rng))
            state = fold(engine, events)
            for _ in range(steps):
                if engine.status(state).finished:
                    break
                yield engine, state, events
                seat = engine.status(state).to_act[0]
                new = engine.decide(state, seat, rng.choice(engine.legal_commands(state, seat)), rng)
                events = events + new
                state = fold(engine, new, state)
            yield engine, state, events


def viewers(count: int) -> list[Viewer]:
    return [Viewer.admin(), Viewer.spectator(), *(Viewer.player(s) for s in range(count))]


@pytest.fixture(scope="module")
def used_keys() -> set[str]:
    """Every key a description, a choice, a GameKind or an error uses."""
    keys = {f"error.{code.name.lower()}" for code in Code} | {
        "error.stale_version",
        "error.versions_lost",
        "seat.unnamed",
    }
    keys.update(LOSS_KEYS)  # the events that record versions the store lost (service/app/keeping/losses.py)
    keys.update(refusal_key(reason) for reason in REFUSALS)
    for change in TABLE_EVENTS:
        keys.update(phrase_keys(table_phrase(change)))
    for kind in KINDS:
        keys.update(message_keys(game_kind(ENGINES[kind])))
        describer = DESCRIBERS[kind]
        engine = ENGINES[kind]
        for event in engine.stop(fold(engine, next(random_games(kind, 1))[2]), 1000):  # its event limit reached
            keys.update(phrase_keys(describer.describe_event(event)))
        told = 0  # the events of the game described so far
        for engine, state, events in random_games(kind, 3):
            for seat in engine.status(state).to_act:
                view = engine.view(state, Viewer.player(seat))
                for described in describer.describe_commands(engine.legal_commands(state, seat), view):
                    keys.update(phrase_keys(described.phrase))
                    for step in described.steps:
                        keys.update(phrase_keys(step.label))
            told = 0 if len(events) < told else told  # a new game
            for event in events[told:]:
                for viewer in viewers(4):
                    redacted = engine.redact(event, viewer)
                    if redacted is not None:
                        keys.update(phrase_keys(describer.describe_event(redacted)))
            told = len(events)
    return keys


def test_every_key_in_use_is_in_every_catalog(used_keys: set[str]) -> None:
    for catalog in catalogs().by_locale.values():
        missing = sorted(used_keys - set(catalog.messages))
        assert not missing, f"the {catalog.locale} catalogs (seeds/locales/, seeds/<kind>/locales/): missing {missing}"


def test_every_catalog_has_the_english_keys_and_placeholders() -> None:
    english = catalogs().by_locale[DEFAULT_LOCALE]
    assert len(catalogs().by_locale) >= 2
    for catalog in catalogs().by_locale.values():
        assert set(catalog.messages) == set(english.messages), f"{catalog.locale}: not the same keys as English"
        for key, text in catalog.messages.items():
            source = english.messages[key]
            assert isinstance(text, tuple) == isinstance(source, tuple), f"{catalog.locale} {key}: plural or not"
            wanted = set().union(*map(placeholders, source)) if isinstance(source, tuple) else placeholders(source)
            forms = text if isinstance(text, tuple) else (text,)
            for form in forms:
                assert placeholders(form) <= wanted | {"count"}, f"{catalog.locale} {key}: unknown placeholder"
            assert set().union(*map(placeholders, forms)) == wanted, f"{catalog.locale} {key}: placeholders differ"


def test_translators_english_notes_match_the_english_catalog() -> None:
    """Other catalogs carry each message's English as a note (#. English: ...) for the
    translator; when the English changes, the note must follow."""
    english = catalogs().by_locale[DEFAULT_LOCALE].messages
    for path in catalog_files(ROOT / "seeds"):
        notes = re.findall(r'^#\. English: (.*)\n(?:#.*\n)*msgid "(.*)"$', path.read_text(), re.MULTILINE)
        for note, key in notes:
            source = english[key]
            assert note == (source if isinstance(source, str) else source[-1]), f"{path}: {key}"


def test_an_unknown_language_falls_back_to_english_and_a_missing_key_too(tmp_path: Path) -> None:
    for locale, text in (("en", "seat {number}"), ("de", "Platz {number}")):
        folder = tmp_path / "locales" / locale / "LC_MESSAGES"
        folder.mkdir(parents=True)
        entries = f'msgid "seat.unnamed"\nmsgstr "{text}"\n'
        if locale == "en":
            entries += 'msgid "bot.random"\nmsgstr "At random."\n'
        (folder / "ludotheque.po").write_text(f'msgid ""\nmsgstr ""\n"Language: {locale}\\n"\n\n{entries}')
    own = Catalogs(tmp_path)
    assert own.locales == ["de", "en"]  # a language is a folder: nothing else to declare
    assert own.negotiate("de-AT, fr;q=0.5") == "de" and own.negotiate("fr") == "en"
    german = own.words("de")
    assert german.text(phrase("seat.unnamed", number=NumberArg(3))) == "Platz 3"
    assert german.template("bot.random") == "At random."  # not translated yet: English


def po_file(path: Path, locale: str, entries: dict[str, str], plural: str = "(n != 1)") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(f'msgid "{key}"\nmsgstr "{text}"\n\n' for key, text in entries.items())
    forms = f"nplurals=2; plural={plural};"
    path.write_text(f'msgid ""\nmsgstr ""\n"Language: {locale}\\n"\n"Plural-Forms: {forms}\\n"\n\n{lines}')


def test_each_games_catalog_is_merged_with_the_services_and_says_no_key_twice(tmp_path: Path) -> None:
    po_file(tmp_path / "locales/en/LC_MESSAGES/ludotheque.po", "en", {"seat.unnamed": "Player {number}"})
    po_file(tmp_path / "dice/locales/en/LC_MESSAGES/dice.po", "en", {"dice.name": "Dice"})
    po_file(tmp_path / "dice/locales/fr/LC_MESSAGES/dice.po", "fr", {"dice.name": "Dés"}, plural="(n > 1)")
    merged = Catalogs(tmp_path)
    assert merged.by_locale["en"].messages == {"seat.unnamed": "Player {number}", "dice.name": "Dice"}
    assert merged.words("fr").template("dice.name") == "Dés" and merged.words("fr").template("seat.unnamed") == (
        "Player {number}"
    )
    po_file(tmp_path / "cards/locales/en/LC_MESSAGES/cards.po", "en", {"dice.name": "Cards"})
    with pytest.raises(ValueError, match=r"'dice\.name' is in both .*cards\.po and .*dice\.po"):
        Catalogs(tmp_path)


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_a_games_catalogs_hold_its_own_words_only(kind: str) -> None:
    """Keys of seeds/<kind>/locales/ begin with the kind's name (or name a bot), so two
    games never say the same key; English is there, as for the service."""
    files = sorted((ROOT / "seeds" / kind / "locales").glob(f"*/LC_MESSAGES/{kind}.po"))
    assert any(path.parts[-3] == DEFAULT_LOCALE for path in files), f"seeds/{kind}/locales/en/ is missing"
    for path in files:
        keys = Catalog.read(path, path.parts[-3]).messages
        strangers = sorted(key for key in keys if not key.startswith((f"{kind}.", "bot.")))
        assert not strangers, f"{path.relative_to(ROOT)}: keys of another game or of the service: {strangers}"


@pytest.mark.parametrize(
    ("asked", "chosen"),
    [
        ("", "en"),
        ("fr", "fr"),
        ("fr-CA", "fr"),
        ("fr_FR", "fr"),
        ("de-CH, fr;q=0.9, en;q=0.8", "fr"),
        ("en-GB, fr;q=0.5", "en"),
        ("fr;q=0, en", "en"),
        ("*", "en"),
        ("klingon", "en"),
        ("FR", "fr"),
    ],
)
def test_the_language_is_the_best_the_catalogs_have(asked: str, chosen: str) -> None:
    assert catalogs().negotiate(asked) == chosen


def step_keys(engine: AnyEngine, state: Any, seat: int) -> list[tuple[tuple[str, str], ...]]:
    view = engine.view(state, Viewer.player(seat))
    described = DESCRIBERS[engine.kind].describe_commands(engine.legal_commands(state, seat), view)
    for item in described:
        assert item.steps, "every legal command has at least one step"
        for step in item.steps:
            assert isinstance(step.role, StepRole) and step.subject and step.value and step.label.key
    return [tuple((step.subject, step.value) for step in item.steps) for item in described]


@pytest.mark.parametrize("kind", KINDS)
def test_choice_steps_tell_every_legal_command_apart(kind: str) -> None:
    """Unique, and no command's steps begin another's: a page that offers the steps one
    at a time always knows when a move is chosen."""
    checked = 0
    for engine, state, _ in random_games(kind, 4):
        for seat in engine.status(state).to_act:
            keys = step_keys(engine, state, seat)
            assert len(set(keys)) == len(keys), f"two commands share their steps: {keys}"
            for key in keys:
                assert not any(other != key and other[: len(key)] == key for other in keys), key
            checked += len(keys)
    assert checked > 100


def test_picnic_moves_are_picked_piece_first_then_the_space() -> None:
    """The picnic's 80-odd Friend moves become a choice of friend, then of space (and
    of way, only where two routes end on the same space)."""
    most = 0
    for engine, state, _ in random_games("picnic", 4):
        if not engine.status(state).to_act:
            continue
        seat = engine.status(state).to_act[0]
        keys = step_keys(engine, state, seat)
        if keys and keys[0][0][0] == "friend":
            assert all(key[1][0] == "cell" for key in keys)
            routes = [key for key in keys if len(key) == 3]
            assert all(key[2][0] == "route" for key in routes)
            most = max(most, len(keys))
    assert most > 10
