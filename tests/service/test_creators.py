"""The creation policies: API keys from a file (kept hashed, read again when it changes)
and JWTs checked against a JWKS from a file or a URL (cached, refreshed for a new key)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import jwt
import pytest
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from service.app.access.creators import ApiKeyCreation, JwtCreation, creation_policy, hash_api_key, parse_api_keys
from service.app.access.jwks import MAX_AGE_SECONDS, MIN_REFETCH_SECONDS, KeySet
from service.app.access.origins import ClientAddresses, Origin
from service.app.model.errors import Code
from tests.support.aio import async_test
from tests.support.clock import Clock
from tests.support.refusals import expect_error

ISSUER, AUDIENCE = "https://id.example", "ludotheque"
NOWHERE = Origin()


# --- API keys ----------------------------------------------------------------------------


@async_test
async def test_api_keys_are_checked_by_their_hash_and_the_file_is_read_again_when_it_changes(tmp_path: Path) -> None:
    keys = tmp_path / "api-keys"
    keys.write_text(f"# the schools\nschool-42:{hash_api_key('key-of-school-42')}\n")
    clock = Clock(100.0)
    policy = ApiKeyCreation(str(keys), clock=clock)
    assert (await policy.creator("key-of-school-42", NOWHERE)).identity == "key:school-42"
    await expect_error(Code.UNAUTHENTICATED, policy.creator("key-of-school-43", NOWHERE))
    await expect_error(Code.UNAUTHENTICATED, policy.creator("", NOWHERE))
    keys.write_text(f"school-43:{hash_api_key('key-of-school-43')}\n")
    clock.now += 10
    assert (await policy.creator("key-of-school-43", NOWHERE)).identity == "key:school-43"
    await expect_error(Code.UNAUTHENTICATED, policy.creator("key-of-school-42", NOWHERE))  # revoked
    keys.write_text("not a key file\n")  # a broken update keeps the keys read before
    clock.now += 10
    assert (await policy.creator("key-of-school-43", NOWHERE)).identity == "key:school-43"


@pytest.mark.parametrize("text", ["alice", "alice:1234", ":" + "a" * 64, "alice:" + "g" * 64])
def test_a_malformed_keys_file_names_its_line(text: str) -> None:
    with pytest.raises(ValueError, match="line 2"):
        parse_api_keys("# comment\n" + text)


def test_a_policy_that_cannot_work_is_refused_at_start(tmp_path: Path) -> None:
    addresses = ClientAddresses()
    for name, options, message in [
        ("api-keys", {}, "--api-keys-file"),
        ("api-keys", {"api_keys_file": str(tmp_path / "missing")}, "missing"),
        ("jwt", {}, "--jwks"),
        ("jwt", {"jwks": str(tmp_path / "missing"), "issuer": ISSUER, "audience": AUDIENCE}, "missing"),
        ("sometimes", {}, "unknown"),
    ]:
        with pytest.raises(ValueError, match=message):
            creation_policy(name, addresses=addresses, **options)
    (tmp_path / "jwks.json").write_text(json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}))
    with pytest.raises(ValueError, match="no usable key"):  # a shared secret is no public key
        creation_policy("jwt", addresses=addresses, jwks=str(tmp_path / "jwks.json"), issuer=ISSUER, audience=AUDIENCE)


# --- JWTs --------------------------------------------------------------------------------


class Provider:
    """An identity provider of the test's own: its keys, and tokens it signs."""

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {}
        self.add_key("ec-1")

    def add_key(self, kid: str, kind: str = "ec") -> None:
        self.keys[kid] = (
            ec.generate_private_key(ec.SECP256R1()) if kind == "ec" else rsa.generate_private_key(65537, 2048)
        )

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid, key in self.keys.items():
            algorithm = ECAlgorithm if isinstance(key, ec.EllipticCurvePrivateKey) else RSAAlgorithm
            jwk = algorithm.to_jwk(key.public_key(), as_dict=True)
            keys.append({**jwk, "kid": kid})
        return {"keys": keys}

    def token(self, kid: str = "ec-1", **claims: Any) -> str:
        key = self.keys[kid]
        algorithm = "ES256" if isinstance(key, ec.EllipticCurvePrivateKey) else "RS256"
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "teacher-7", "exp": int(time.time()) + 300, **claims}
        return jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm, headers={"kid": kid})


@async_test
async def test_a_jwt_signed_by_a_key_of_the_set_for_us_from_our_issuer_creates(tmp_path: Path) -> None:
    provider = Provider()
    provider.add_key("rsa-1", "rsa")
    (tmp_path / "jwks.json").write_text(json.dumps(provider.jwks()))
    policy = JwtCreation(KeySet(str(tmp_path / "jwks.json")), ISSUER, AUDIENCE)
    assert (await policy.creator(provider.token(), NOWHERE)).identity == "jwt:teacher-7"
    assert (await policy.creator(provider.token("rsa-1", sub="t8"), NOWHERE)).identity == "jwt:t8"
    stranger = Provider()  # same key id, another key
    for token in (
        provider.token(aud="another-service"),
        provider.token(iss="https://evil.example"),
        provider.token(exp=int(time.time()) - 600),
        provider.token(sub=None),
        provider.token(exp=None),
        stranger.token(),
        jwt.encode({"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": 2**40}, "secret" * 8, "HS256"),
        jwt.encode({"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": 2**40}, "", "none"),
        "not.a.jwt",
        "",
    ):
        await expect_error(Code.UNAUTHENTICATED, policy.creator(token, NOWHERE))
    # A token that names its key with the wrong algorithm is refused too (no alg confusion).
    header_rs = jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": 2**40},
        provider.keys["rsa-1"],
        "PS256",
        headers={"kid": "rsa-1"},
    )
    await expect_error(Code.UNAUTHENTICATED, policy.creator(header_rs, NOWHERE))


@asynccontextmanager
async def jwks_server(provider: Provider) -> AsyncIterator[tuple[str, list[int]]]:
    """Serves the provider's JWKS on 127.0.0.1; yields its URL and a fetch counter
    (set `provider.down = True` to answer 503)."""
    fetches = [0]

    async def serve(_: web.Request) -> web.Response:
        fetches[0] += 1
        if getattr(provider, "down", False):
            return web.Response(status=503)
        return web.json_response(provider.jwks())

    app = web.Application()
    app.router.add_get("/.well-known/jwks.json", serve)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/.well-known/jwks.json", fetches
    finally:
        await runner.cleanup()


@async_test
async def test_a_jwks_from_a_url_is_cached_refreshed_for_a_new_key_and_kept_when_the_provider_fails() -> None:
    provider = Provider()
    clock = Clock(100.0)
    async with jwks_server(provider) as (url, fetches):
        policy = JwtCreation(KeySet(url, clock=clock), ISSUER, AUDIENCE)
        for _ in range(3):
            await policy.creator(provider.token(), NOWHERE)
        assert fetches == [1]  # cached
        provider.add_key("ec-2")  # the provider rotates its keys
        # Too soon to fetch the keys again:
        await expect_error(Code.UNAUTHENTICATED, policy.creator(provider.token("ec-2"), NOWHERE))
        assert fetches == [1]
        clock.now += MIN_REFETCH_SECONDS
        assert (await policy.creator(provider.token("ec-2"), NOWHERE)).identity == "jwt:teacher-7"
        assert fetches == [2]
        await expect_error(Code.UNAUTHENTICATED, policy.creator(provider.token("ec-2", sub="x") + "x", NOWHERE))
        provider.down = True  # type: ignore[attr-defined]
        clock.now += MAX_AGE_SECONDS
        assert (await policy.creator(provider.token(), NOWHERE)).identity == "jwt:teacher-7"  # kept
        assert fetches == [3]


@async_test
async def test_a_jwks_url_that_never_answered_is_unavailable_not_unauthenticated() -> None:
    provider = Provider()
    provider.down = True  # type: ignore[attr-defined]
    async with jwks_server(provider) as (url, _):
        policy = JwtCreation(KeySet(url), ISSUER, AUDIENCE)
        refusal = await expect_error(Code.UNAVAILABLE, policy.creator(provider.token(), NOWHERE))
        assert "503" in refusal.message
