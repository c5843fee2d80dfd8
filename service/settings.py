"""Settings declared once, beside the code that uses them, and the one mechanism that reads them.

A *family* is a frozen dataclass whose fields are settings (declared with `setting` or
`converted`) or other families. Each setting is a flag of `ludotheque serve`
(`--name-with-dashes`) and an environment variable (`LUDOTHEQUE_NAME`), both derived from
its name (its field's, unless it names another); the flag wins, then the variable, then
the default. `read` builds a whole tree of families at once and says every problem in one
error; `add_flags` lists them all on a command line; `environment` writes a tree back as
the variables that give it again (for worker processes). The store, app and api layers
declare their own families with this module, which imports nothing of ours, and the
command line (service/cli/config.py) gathers them:

    @dataclass(frozen=True, slots=True)
    class Clocks:
        interval: float = setting(1.0, "seconds between two looks at the schedule", name="clock_interval")
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
Family = TypeVar("Family")
# A problem with a value, said after the setting's name ("must be 0 or more"); None: fine.
Check = Callable[[Any], "str | None"]

ENV_PREFIX = "LUDOTHEQUE_"
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
_DECLARED = "ludotheque.setting"  # the key of a setting's declaration in its field's metadata


class SettingsError(ValueError):
    """Settings that cannot be used: every problem found, each naming what to fix."""


@dataclass(frozen=True, slots=True)
class _Declared:
    help: str
    name: str
    secret: bool
    check: Check | None
    text: str | None = None  # a converted setting's default, as operators write it
    parse: Callable[[str], Any] | None = None  # a converted setting: text -> value (ValueError: refused)
    show: Callable[[Any], str] | None = None  # and back


def setting(default: T, help: str, *, name: str = "", secret: bool = False, check: Check | None = None) -> T:
    """A setting of the type of its `default` (int, float, str or bool), declared as a
    family's field. `name`: when the field's name is not the one operators use; `secret`:
    never shown (not even in the family's repr); `check`: what is wrong with a value."""
    declared = _Declared(help, name, secret, check)
    return dataclasses.field(default=default, repr=not secret, metadata={_DECLARED: declared})


def converted(text: str, help: str, *, parse: Callable[[str], T], show: Callable[[T], str], name: str = "") -> T:
    """A setting written as text (`text` its default) and held as what `parse` makes of
    it (raising ValueError, with why, for text it refuses); `show` writes a value back."""
    declared = _Declared(help, name, False, None, text, parse, show)
    return dataclasses.field(default_factory=lambda: parse(text), metadata={_DECLARED: declared})


def at_least(least: float) -> Check:
    """A check that a number is `least` or more."""
    return lambda value: None if value >= least else f"must be {least} or more"


def one_of(*words: str) -> Check:
    """A check that a text is one of `words`."""
    return lambda value: None if value in words else f"{value!r} is not one of {', '.join(words)}"


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting as operators see it: its flag, variable, type and default."""

    name: str
    type: type  # int, float, str or bool: what the flag and the variable are read as
    default: object  # as operators write it
    help: str
    secret: bool
    path: tuple[str, ...]  # the attributes from the root family down to its field
    declared: _Declared

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    def parse(self, text: str) -> object:
        """The value of a flag's or a variable's text; ValueError says why not."""
        if self.declared.parse is not None:
            return self.declared.parse(text)
        if self.type is bool:
            word = text.strip().lower()
            if word not in TRUE_WORDS | FALSE_WORDS:
                raise ValueError(f"{text!r} is not a yes or no (true/false, 1/0, yes/no, on/off)")
            return word in TRUE_WORDS
        return self.type(text)

    def text(self, value: object) -> str:
        """`value` written as this setting's variable would say it."""
        return self.declared.show(value) if self.declared.show is not None else str(value)


def _is_family(kind: object) -> bool:
    return isinstance(kind, type) and dataclasses.is_dataclass(kind) and bool(declarations(kind))


def declarations(family: type, path: tuple[str, ...] = ()) -> list[Setting]:
    """Every setting of `family` and of the families it holds, in their order."""
    found: list[Setting] = []
    hints = typing.get_type_hints(family)
    for field in dataclasses.fields(family):
        declared = field.metadata.get(_DECLARED)
        if declared is None:
            if _is_family(hints[field.name]):
                found.extend(declarations(hints[field.name], (*path, field.name)))
            continue
        kind: type
        default: object
        if declared.parse is not None:
            kind, default = str, declared.text
        else:
            kind, default = type(field.default), field.default
        name = declared.name or field.name
        found.append(Setting(name, kind, default, declared.help, declared.secret, (*path, field.name), declared))
    names = [s.name for s in found]
    if len(set(names)) != len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise TypeError(f"{family.__name__}: settings declared twice: {', '.join(twice)}")
    return found


def add_flags(parser: argparse.ArgumentParser, family: type) -> None:
    """Every setting of `family` as a flag of `parser` (a yes-or-no as --name / --no-name)."""
    for s in declarations(family):
        help = f"{s.help} [env {s.env}, default {s.default!r}]"
        if s.type is bool:
            parser.add_argument(s.flag, dest=s.name, action=argparse.BooleanOptionalAction, help=help)
        elif s.declared.parse is not None:  # parsed in `read`, to say what is wrong as for a variable
            parser.add_argument(s.flag, dest=s.name, default=None, help=help)
        else:
            parser.add_argument(s.flag, dest=s.name, type=s.type, default=None, help=help)


def _value(s: Setting, flags: argparse.Namespace, environ: Mapping[str, str], problems: list[str]) -> object:
    """The setting's value: its flag's, else its variable's, else its default; checked."""
    given, source = getattr(flags, s.name, None), s.flag
    try:
        if isinstance(given, str) and s.declared.parse is not None:
            given = s.parse(given)
        elif given is None and s.env in environ:
            source = s.env
            given = s.parse(environ[s.env])
    except ValueError as error:
        problems.append(f"{source}: {error}")
        return None
    if given is None:
        return None  # the field's default
    problem = s.declared.check(given) if s.declared.check is not None else None
    if problem:
        problems.append(f"{source} {problem}")
    return given


def read(family: type[Family], flags: argparse.Namespace, environ: Mapping[str, str]) -> Family:
    """The whole tree of `family`, from `flags` (as `add_flags` declared them), then the
    `environ`ment's variables, then the defaults. Raises SettingsError naming every
    setting that is wrong, and every family whose settings do not go together."""
    problems: list[str] = []
    values = {s.path: _value(s, flags, environ, problems) for s in declarations(family)}
    built = None if problems else _build(family, (), values, problems)
    if built is None:
        raise SettingsError("; ".join(problems))
    return built


def _build(
    family: type[Family], path: tuple[str, ...], values: Mapping[tuple[str, ...], object], problems: list[str]
) -> Family | None:
    """`family` made of its settings' `values` and its families, each built the same
    way; None, with the problems said, when it or a family it holds cannot be made."""
    hints = typing.get_type_hints(family)
    given: dict[str, object] = {}
    for field in dataclasses.fields(family):  # type: ignore[arg-type]
        where = (*path, field.name)
        if values.get(where) is not None:
            given[field.name] = values[where]
        elif where not in values and _is_family(hints[field.name]):
            given[field.name] = _build(hints[field.name], where, values, problems)
    if any(value is None for value in given.values()):
        return None  # a family below could not be made, and said why
    try:
        return family(**given)
    except ValueError as error:  # its own checks: settings that do not go together
        problems.append(str(error))
        return None


def environment(tree: object) -> dict[str, str]:
    """The variables that give every setting of `tree` (a family, read) its value."""
    found = {}
    for s in declarations(type(tree)):
        value = tree
        for attribute in s.path:
            value = getattr(value, attribute)
        found[s.env] = s.text(value)
    return found
