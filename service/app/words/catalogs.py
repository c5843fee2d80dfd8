"""Every text the service says to people, in each language: the message catalogs of
seeds/locales/<language>/LC_MESSAGES/ludotheque.po (the service's own words) merged
with each game's, beside its data (seeds/<kind>/locales/<language>/LC_MESSAGES/<kind>.po),
gettext files read with Babel, by message key; the choice of a language from what a caller asks (a request's `locale`,
or its Accept-Language header); and phrases (engines/phrases.py) rendered as text and
as ludotheque.text.v1.Description messages.

Catalogs are read once per process and never change; English is the source (every
key is there) and the fallback for a key another catalog lacks."""

from __future__ import annotations

import functools
import gettext
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from babel import Locale
from babel.lists import format_list
from babel.messages.pofile import read_po
from google.protobuf.message import Message
from ludotheque.text.v1.description_pb2 import Description

from engines.data import seeds_dir
from engines.phrases import Arg, ListArg, NumberArg, Phrase, SeatArg, TextArg

DEFAULT_LOCALE = "en"
DOMAIN = "ludotheque"
MAX_CACHED = 4096  # rendered argument phrases (cards, faces, tiles) kept per language

Template = str | tuple[str, ...]  # a message, or its plural forms


@dataclass(frozen=True, slots=True)
class Catalog:
    """One language's messages, by key."""

    locale: str
    messages: dict[str, Template]
    plural: Callable[[int], int]
    plural_expr: str = "(n != 1)"  # the gettext expression `plural` computes
    sources: dict[str, Path] = field(default_factory=dict)  # each key's file

    def merged(self, other: Catalog) -> Catalog:
        """This catalog and `other`'s messages (a game's, in the same language). A key
        in both, or another plural rule, is an error naming the files."""
        for key in self.messages.keys() & other.messages.keys():
            raise ValueError(f"message {key!r} is in both {self.sources[key]} and {other.sources[key]}")
        if other.plural_expr != self.plural_expr:
            files = sorted({str(path) for path in other.sources.values()})
            raise ValueError(f"{', '.join(files)}: plural forms {other.plural_expr!r}, not {self.plural_expr!r}")
        messages, sources = {**self.messages, **other.messages}, {**self.sources, **other.sources}
        return Catalog(self.locale, messages, self.plural, self.plural_expr, sources)

    @staticmethod
    def read(path: Path, locale: str) -> Catalog:
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=locale, domain=DOMAIN)
        messages: dict[str, Template] = {}
        for message in catalog:
            if not message.id or message.fuzzy:
                continue  # the header, and what a translator marked as unsure
            key = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
            text = message.string
            if isinstance(text, (tuple, list)):
                if all(text):
                    messages[str(key)] = tuple(str(t) for t in text)
            elif text:
                messages[str(key)] = str(text)
        sources = dict.fromkeys(messages, path)
        return Catalog(locale, messages, gettext.c2py(catalog.plural_expr), catalog.plural_expr, sources)


def placeholders(template: str) -> set[str]:
    """The {names} a message's text uses."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def catalog_files(seeds: Path) -> list[Path]:
    """The service's catalogs (seeds/locales/), then every game's (seeds/<kind>/locales/)."""
    return [
        *sorted((seeds / "locales").glob(f"*/LC_MESSAGES/{DOMAIN}.po")),
        *sorted(seeds.glob("*/locales/*/LC_MESSAGES/*.po")),
    ]


class Catalogs:
    """Every language of the catalogs under seeds/ (the service's and each game's,
    merged by language), and the choice of one for a caller."""

    def __init__(self, seeds: Path | None = None) -> None:
        seeds = seeds or seeds_dir()
        self.by_locale: dict[str, Catalog] = {}
        for path in catalog_files(seeds):
            locale = path.parent.parent.name
            read = Catalog.read(path, locale)
            known = self.by_locale.get(_normal(locale))
            self.by_locale[_normal(locale)] = read if known is None else known.merged(read)
        if _normal(DEFAULT_LOCALE) not in self.by_locale:
            raise FileNotFoundError(f"no {DEFAULT_LOCALE} catalog in {seeds}/locales: it is the source of every key")
        self._words: dict[str, Words] = {}  # by language
        self._asked: dict[str, Words] = {}  # by what callers asked (a tag, an Accept-Language list)

    @property
    def locales(self) -> list[str]:
        return sorted(catalog.locale for catalog in self.by_locale.values())

    def negotiate(self, requested: str) -> str:
        """The catalog's language that best fits `requested`: a language tag ("fr",
        "fr-CA") or an Accept-Language list ("fr-CH, fr;q=0.9, en;q=0.8"); English
        when none fits."""
        return _negotiate(tuple(self.by_locale), requested)

    def words(self, requested: str = "") -> Words:
        """Phrases rendered in the language that best fits `requested`."""
        words = self._asked.get(requested)  # every answer asks: one lookup
        if words is None:
            locale = self.negotiate(requested)
            words = self._words.get(locale)
            if words is None:
                english = self.by_locale[_normal(DEFAULT_LOCALE)]
                words = self._words[locale] = Words(self.by_locale[locale], english)
            if len(self._asked) >= MAX_CACHED:
                self._asked.clear()
            self._asked[requested] = words
        return words


@functools.lru_cache(maxsize=1024)
def _negotiate(available: tuple[str, ...], requested: str) -> str:
    for tag in _preferences(requested):
        if tag in available:
            return tag
        primary = tag.split("-", 1)[0]
        if primary in available:
            return primary
    return _normal(DEFAULT_LOCALE)


def _preferences(requested: str) -> list[str]:
    """The tags of an Accept-Language value, most wanted first (q=0 left out)."""
    weighted: list[tuple[float, int, str]] = []
    for position, part in enumerate(requested.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and tag != "*" and quality > 0:
            weighted.append((-quality, position, _normal(tag)))
    return [tag for _, _, tag in sorted(weighted)]


def _normal(tag: str) -> str:
    return tag.strip().replace("_", "-").lower()


@dataclass(slots=True)
class Words:
    """Phrases in one language (English for a key the language lacks)."""

    catalog: Catalog
    english: Catalog
    _lists: Locale | None = None  # the language's list patterns ("A, B and C"), parsed once
    _cache: dict[Phrase, str] = field(default_factory=dict)  # argument phrases' texts
    _described: dict[Phrase, Description] = field(default_factory=dict)  # whole descriptions

    @property
    def locale(self) -> str:
        return self.catalog.locale

    def template(self, key: str, count: int = 1) -> str:
        found = self.catalog.messages.get(key)
        plural = self.catalog.plural
        if found is None:
            found, plural = self.english.messages.get(key, key), self.english.plural
        if isinstance(found, tuple):
            return found[min(max(plural(count), 0), len(found) - 1)]
        return found

    def text(self, phrase: Phrase, names: Sequence[str] = ()) -> str:
        """The phrase in this language; seats are shown by `names` (index: name)."""
        return self._render(phrase, {name: self._arg(arg, names)[1] for name, arg in phrase.args})

    def describe(self, phrase: Phrase, names: Sequence[str] = (), *, into: Description | None = None) -> Description:
        """The phrase as a Description (written `into` the one given): its key, each
        argument's value and text, the text. One that names no seat is the same in
        every game: it is rendered once and copied after."""
        description = Description() if into is None else into
        if phrase.personal:
            return self._build(phrase, names, description)
        made = self._described.get(phrase)
        if made is None:
            if len(self._described) >= MAX_CACHED:
                self._described.clear()
            made = self._described[phrase] = self._build(phrase, names, Description())
        description.CopyFrom(made)
        return description

    def _build(self, phrase: Phrase, names: Sequence[str], description: Description) -> Description:
        description.key = phrase.key
        texts: dict[str, str] = {}
        for name, arg in phrase.args:
            value, text = self._arg(arg, names)
            texts[name] = text
            entry = description.args[name]
            entry.value = value
            entry.text = text
        description.text = self._render(phrase, texts)
        return description

    def fill(self, message: Message) -> None:
        """Writes the text of every Description in `message` (those with a key and
        argument values but no text yet, as engines' material and GameKind carry)."""
        for descriptor, value in message.ListFields():
            if descriptor.message_type is None:
                continue
            if descriptor.message_type is Description.DESCRIPTOR:
                for item in value if descriptor.is_repeated else (value,):
                    texts = {name: arg.text or arg.value for name, arg in item.args.items()}
                    item.text = self._format(self.template(item.key, _count(texts)), texts, item.key)
            elif descriptor.message_type.GetOptions().map_entry:
                continue
            else:
                for item in value if descriptor.is_repeated else (value,):
                    self.fill(item)

    def _arg(self, arg: Arg, names: Sequence[str]) -> tuple[str, str]:
        """An argument's value (for programs) and text (in this language)."""
        if isinstance(arg, SeatArg):
            name = names[arg.index] if arg.index < len(names) else ""
            # A seat without a name is "Player 1", "Player 2"...: people count from 1.
            return str(arg.index), name or self.text(Phrase("seat.unnamed", (("number", NumberArg(arg.index + 1)),)))
        if isinstance(arg, NumberArg):
            return str(arg.value), str(arg.value)
        if isinstance(arg, TextArg):
            return arg.value, arg.text
        if isinstance(arg, ListArg):
            if self._lists is None:
                self._lists = Locale.parse(self.locale)
            return arg.value, format_list([self._cached(item, names) for item in arg.items], locale=self._lists)
        return arg.value, self._cached(arg, names)

    def _cached(self, phrase: Phrase, names: Sequence[str]) -> str:
        """An argument phrase's text: those without seats (a card, a face, a colour)
        are the same in every game, so they are rendered once."""
        text = self._cache.get(phrase)
        if text is None:
            text = self.text(phrase, names)
            if not phrase.personal:
                if len(self._cache) >= MAX_CACHED:
                    self._cache.clear()
                self._cache[phrase] = text
        return text

    def _render(self, phrase: Phrase, texts: dict[str, str]) -> str:
        return self._format(self.template(phrase.key, _count_of(phrase)), texts, phrase.key)

    def _format(self, template: str, texts: dict[str, str], key: str) -> str:
        try:
            return template.format_map(texts)
        except (KeyError, ValueError, IndexError, AttributeError):
            # A translation with a wrong placeholder (the catalog tests catch them):
            # say it in English rather than fail the answer.
            english = self.english.messages.get(key, key)
            return (english if isinstance(english, str) else english[-1]).format_map(_Missing(texts))


def _count_of(phrase: Phrase) -> int:
    for name, arg in phrase.args:
        if name == "count" and isinstance(arg, NumberArg):
            return arg.value
    return 1


def _count(texts: dict[str, str]) -> int:
    count = texts.get("count", "1")
    return int(count) if count.isdigit() else 1


class _Missing(dict[str, str]):
    """Placeholders an English text has but were not given show as themselves."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@functools.cache
def catalogs() -> Catalogs:
    """The process's catalogs, read on first use."""
    return Catalogs()
