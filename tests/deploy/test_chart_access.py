"""The chart's creation policy, limits, API keys, JWKS and secret rotation: what the
values say reaches the server as settings it accepts, and the files it names are
mounted where it reads them, with contents its policies read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import helm_python as helm
import pytest

from service.app.access.creators import creation_policy, parse_api_keys
from service.app.access.jwks import parse_key_set
from service.app.access.origins import ClientAddresses, parse_networks
from tests.deploy.chart import (
    EXISTING_CONFIG_MAPS,
    VALUE_SETS,
    Object,
    Rendered,
    container_environment,
    render,
    secret_data,
    server_container,
)
from tests.deploy.test_chart_config import serve_config


def mounted_file(r: Rendered, path: str) -> str:
    """What the server container finds at `path`: the key of the Secret or ConfigMap
    mounted over its directory."""
    container = server_container(r)
    pod = r.one("Deployment")["spec"]["template"]["spec"]
    directory, _, key = path.rpartition("/")
    (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == directory]
    assert mount.get("readOnly") and "subPath" not in mount  # an updated Secret reaches the pod
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    if "secret" in volume:
        data = secret_data(r, volume["secret"]["secretName"])
    else:
        made = r.named("ConfigMap", volume["configMap"]["name"])
        data = made["data"] if made else EXISTING_CONFIG_MAPS.get(volume["configMap"]["name"])
    assert data is not None and key in data, (path, volume)
    return data[key]


def environment(r: Rendered) -> dict[str, str]:
    return container_environment(r, server_container(r))


@pytest.mark.parametrize(
    ("value_set", "names"), [("api-keys-and-proxies", {"school-42", "club"}), ("existing-secret", {"school-42"})]
)
def test_the_api_keys_file_is_mounted_where_the_server_reads_it(
    value_set: str, names: set[str], tmp_path: Path
) -> None:
    r = render(VALUE_SETS[value_set])
    config = serve_config(r)
    assert config.access.create_policy == "api-keys"
    keys = mounted_file(r, config.access.api_keys_file)
    assert set(parse_api_keys(keys).values()) == names
    (tmp_path / "api-keys").write_text(keys)
    creation_policy("api-keys", addresses=ClientAddresses(), api_keys_file=str(tmp_path / "api-keys"))


def test_limits_proxies_and_a_previous_secret_reach_the_server() -> None:
    config = serve_config(render(VALUE_SETS["api-keys-and-proxies"]))
    assert [str(n) for n in parse_networks(config.access.trusted_proxies)] == ["10.0.0.0/8", "192.168.0.0/16"]
    assert config.access.previous_secret == "the-secret-being-rotated-out-0123456789"
    operator = serve_config(render(VALUE_SETS["existing-secret"]))
    assert (
        operator.app.limits.per_minute,
        operator.app.limits.live_games,
        operator.app.limits.bot_games_per_minute,
    ) == (
        20,
        10,
        2,
    )
    assert operator.access.previous_secret == "the-secret-being-rotated-out-0123456789"
    default = serve_config(render({}))
    assert (default.access.create_policy, default.access.previous_secret, default.app.limits.per_minute) == (
        "open",
        "",
        60,
    )


def test_a_jwks_is_a_url_or_a_mounted_file() -> None:
    url = serve_config(render(VALUE_SETS["jwt-url"]))
    assert (url.access.create_policy, url.access.jwks, url.access.jwt_audience) == (
        "jwt",
        "https://id.example.com/.well-known/jwks.json",
        "ludotheque",
    )
    r = render(VALUE_SETS["jwt-file"])
    config = serve_config(r)
    assert (
        config.access.jwks == "/etc/ludotheque/jwks/jwks.json" and config.access.jwt_issuer == "https://id.example.com"
    )
    assert set(parse_key_set(mounted_file(r, config.access.jwks).encode())) == {"provider-1"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"config": {"createPolicy": "api-keys"}}, "needs access.apiKeys.existingSecret or access.apiKeys.hashes"),
        (
            {"config": {"createPolicy": "jwt", "jwtIssuer": "i", "jwtAudience": "a"}},
            "needs config.jwks (the JWKS URL) or access.jwks.configMap",
        ),
        ({"config": {"createPolicy": "jwt", "jwks": "https://id.example/jwks"}}, "needs config.jwtIssuer and"),
        (
            {
                "config": {"createPolicy": "jwt", "jwks": "https://x/j", "jwtIssuer": "i", "jwtAudience": "a"},
                "access": {"jwks": {"configMap": "keys"}},
            },
            "both name a JWKS",
        ),
    ],
)
def test_a_policy_without_what_it_needs_is_refused_at_install(values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmRenderError, match="execution error") as refused:
        render(values)
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"config": {"createPolicy": "anyone"}}, "at '/config/createPolicy'"),
        ({"config": {"createRate": -1}}, "at '/config/createRate'"),
        ({"config": {"trustedProxies": "the ingress"}}, "at '/config/trustedProxies'"),
        ({"config": {"jwks": "/etc/keys.json"}}, "at '/config/jwks'"),
        ({"secrets": {"adminToken": "admin"}}, "at '/secrets/adminToken'"),
        ({"secrets": {"previousSecret": "old"}}, "at '/secrets/previousSecret'"),
        ({"access": {"apiKeys": {"hashes": ["school-42:not-a-hash"]}}}, "at '/access/apiKeys/hashes/0'"),
    ],
)
def test_access_values_against_the_schema_are_refused(values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmValuesError) as refused:
        render(values)
    assert message in str(refused.value)


def test_the_chart_makes_no_api_keys_secret_unless_asked() -> None:
    assert not [s for s in render({}).of_kind("Secret") if s["metadata"]["name"].endswith("-api-keys")]
    made: list[Object] = [
        s
        for s in render(VALUE_SETS["api-keys-and-proxies"]).of_kind("Secret")
        if s["metadata"]["name"].endswith("-api-keys")
    ]
    assert len(made) == 1
    assert "LUDOTHEQUE_API_KEYS_FILE" not in environment(render({}))
