"""`ludotheque serve`'s settings, read by the one mechanism of service/settings.py: a flag
wins over its variable, which wins over the default; every wrong value is named at once;
settings that do not go together are refused; a worker's environment gives its
supervisor's configuration back; secrets never show; a name is declared once."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import pytest

from service.cli import build_parser
from service.cli.config import SETTINGS, Config, defaults, from_arguments
from service.settings import at_least, declarations, environment, setting

SECRET = "a-secret-of-at-least-thirty-two-bytes-0123"
PREVIOUS = "the-secret-it-replaces-thirty-two-bytes-0123"


def serve(*flags: str, **variables: str) -> Config:
    return from_arguments(build_parser().parse_args(["serve", *flags]), variables)


def refusal(*flags: str, **variables: str) -> str:
    with pytest.raises(SystemExit) as refused:
        serve(*flags, **variables)
    return str(refused.value)


def test_a_flag_wins_over_its_variable_which_wins_over_the_default() -> None:
    assert serve("--cache-size", "5", LUDOTHEQUE_CACHE_SIZE="7").app.cache_size == 5
    assert serve(LUDOTHEQUE_CACHE_SIZE="7").app.cache_size == 7
    assert serve().app.cache_size == 10_000
    # A setting of a family held by another (the app's retention) is read the same way.
    assert serve("--retention-interval", "2.5").app.retention.interval == 2.5
    assert serve(LUDOTHEQUE_FINISHED_GAME_TTL="0").app.retention.finished_ttl == 0
    assert serve("--max-game-events", "pirates=20", LUDOTHEQUE_MAX_GAME_EVENTS="picnic=5").app.event_limits == {
        "pirates": 20
    }


def test_a_yes_or_no_is_a_flag_pair_or_a_word() -> None:
    assert serve().http.web is True
    assert serve("--no-web").http.web is False
    assert serve("--web", LUDOTHEQUE_WEB="off").http.web is True
    assert serve(LUDOTHEQUE_WEB="off").http.web is False
    assert serve(LUDOTHEQUE_GRPC_GATE="0").grpc.gate is False
    assert "LUDOTHEQUE_WEB: 'maybe' is not a yes or no" in refusal(LUDOTHEQUE_WEB="maybe")


def test_every_wrong_value_is_named_at_once() -> None:
    message = refusal(
        "--max-game-events",
        "chess=5",
        LUDOTHEQUE_CREATE_RATE="-1",
        LUDOTHEQUE_GRPC_PORT="eighty",
        LUDOTHEQUE_CREATE_POLICY="everyone",
        LUDOTHEQUE_PUBLIC_ORIGIN="https://ludo.example.org/play",
        LUDOTHEQUE_SECRET="short",
    )
    assert message.startswith("ludotheque serve: ")
    for said in (
        "--max-game-events: unknown kind 'chess'",
        "LUDOTHEQUE_CREATE_RATE must be 0 or more",
        "LUDOTHEQUE_GRPC_PORT: invalid literal for int()",
        "LUDOTHEQUE_CREATE_POLICY 'everyone' is not one of open, api-keys, jwt",
        "LUDOTHEQUE_PUBLIC_ORIGIN 'https://ludo.example.org/play' is not an origin",
        "LUDOTHEQUE_SECRET is 5 bytes: a secret must be at least 32",
    ):
        assert said in message
    assert "short" not in message.replace("LUDOTHEQUE_SECRET", "")  # the secret itself is never shown
    assert "--snapshot-interval must be 0 or more" in refusal("--snapshot-interval", "-1")


def test_settings_that_do_not_go_together_are_refused_each_family_saying_why() -> None:
    message = refusal(
        "--grpc-max-concurrent-streams",
        "10",
        "--max-streams-per-connection",
        "10",
        "--abandoned-game-ttl",
        "-1",
        LUDOTHEQUE_PREVIOUS_SECRET=PREVIOUS,
    )
    assert "--grpc-max-concurrent-streams must be more than --max-streams-per-connection" in message
    assert "LUDOTHEQUE_PREVIOUS_SECRET needs LUDOTHEQUE_SECRET" in message
    assert "times to live are seconds" in message
    assert serve(LUDOTHEQUE_PREVIOUS_SECRET=PREVIOUS, LUDOTHEQUE_SECRET=SECRET).access.previous_secret == PREVIOUS


def test_a_workers_environment_gives_its_supervisors_configuration_back() -> None:
    config = serve(
        "--store",
        "redis://127.0.0.1:6399/0",
        "--no-web",
        "--max-game-events",
        "pirates=20000,picnic=5",
        "--finished-game-ttl",
        "0",
        "--websocket-heartbeat",
        "3.5",
        LUDOTHEQUE_SECRET=SECRET,
        LUDOTHEQUE_BOT_GAME_RATE="4",
        LUDOTHEQUE_EXAMPLE_GAMES="yes",
    )
    assert config != defaults()
    assert from_arguments(argparse.Namespace(), environment(config)) == config
    assert set(environment(config)) == {setting.env for setting in SETTINGS}


def test_secrets_never_show_in_a_configuration() -> None:
    config = serve(LUDOTHEQUE_SECRET=SECRET, LUDOTHEQUE_ADMIN_TOKEN=PREVIOUS)
    assert SECRET not in repr(config) and PREVIOUS not in repr(config)
    assert {setting.name for setting in SETTINGS if setting.secret} == {"secret", "previous_secret", "admin_token"}


def test_serve_lists_every_setting_with_its_variable_and_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for known in SETTINGS:
        assert known.flag in text and f"env {known.env}, default {known.default!r}" in text


@dataclass(frozen=True, slots=True)
class _Ports:
    port: int = setting(1, "a port", name="grpc_port", check=at_least(0))


@dataclass(frozen=True, slots=True)
class _OtherPorts:
    grpc_port: int = setting(2, "the same name again")


@dataclass(frozen=True, slots=True)
class _Both:
    ports: _Ports
    others: _OtherPorts


def test_a_name_is_declared_once() -> None:
    assert [s.flag for s in declarations(_Ports)] == ["--grpc-port"]
    with pytest.raises(TypeError, match="settings declared twice: grpc_port"):
        declarations(_Both)
