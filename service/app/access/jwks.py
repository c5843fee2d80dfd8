"""The keys JWTs are checked against (--create-policy jwt): a JSON Web Key Set read from
a file or fetched from a URL (an identity provider's jwks_uri), cached, and refreshed
when it ages or when a token names a key it does not have (a provider rotated its keys).

Only asymmetric keys count: a shared secret has no place in a public key set, and
accepting one would let its holders (or a confused `alg`) mint tokens."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
import jwt

log = logging.getLogger(__name__)

ALGORITHMS = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"})
MAX_AGE_SECONDS = 300.0  # a cached set is fetched again after this
MIN_REFETCH_SECONDS = 30.0  # unknown key ids fetch again at most this often (no fetch storm)
FETCH_TIMEOUT_SECONDS = 5.0
MAX_SET_BYTES = 1 << 20


class KeySetUnavailable(Exception):
    """The key set cannot be read or fetched, and no earlier copy is at hand."""


def parse_key_set(data: bytes) -> dict[str | None, jwt.PyJWK]:
    """The usable keys of a JWKS document, by key id. Raises ValueError."""
    try:
        document = json.loads(data)
        keys = jwt.PyJWKSet.from_dict(document).keys
    except (ValueError, TypeError, AttributeError, jwt.PyJWTError) as error:
        raise ValueError(f"not a JSON Web Key Set: {error}") from None
    usable = {key.key_id: key for key in keys if key.algorithm_name in ALGORITHMS}
    if not usable:
        raise ValueError(f"no usable key: only {', '.join(sorted(ALGORITHMS))} keys are accepted")
    return usable


class KeySet:
    """A JWKS from `source`: a file path, or an http(s) URL."""

    def __init__(self, source: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self._clock = clock
        self._keys: dict[str | None, jwt.PyJWK] = {}
        self._fetched_at = -MAX_AGE_SECONDS
        self._lock = asyncio.Lock()
        self._is_url = source.startswith(("https://", "http://"))
        if not self._is_url:
            self._keys = parse_key_set(self._read_file())  # a bad file stops the server at start
            self._fetched_at = clock()

    async def key(self, key_id: str | None) -> jwt.PyJWK:
        """The key a token's `kid` names (a token without one: the set's only key).
        Raises KeyError when the set, even refreshed, has no such key."""
        now = self._clock()
        if now - self._fetched_at >= MAX_AGE_SECONDS or (
            _find(self._keys, key_id) is None and now - self._fetched_at >= MIN_REFETCH_SECONDS
        ):
            await self._refresh()
        found = _find(self._keys, key_id)
        if found is None:
            raise KeyError(key_id)
        return found

    async def _refresh(self) -> None:
        async with self._lock:
            if self._clock() - self._fetched_at < MIN_REFETCH_SECONDS:
                return  # another call refreshed it meanwhile
            try:
                data = await self._fetch() if self._is_url else self._read_file()
                self._keys = parse_key_set(data)
            except (OSError, ValueError, aiohttp.ClientError, TimeoutError) as error:
                if not self._keys:
                    raise KeySetUnavailable(f"the JWKS at {self.source} cannot be read: {error}") from None
                log.warning("keeping the JWKS read before: %s cannot be read now: %s", self.source, error)
            self._fetched_at = self._clock()

    def _read_file(self) -> bytes:
        return Path(self.source).read_bytes()

    async def _fetch(self) -> bytes:
        timeout = aiohttp.ClientTimeout(total=FETCH_TIMEOUT_SECONDS)
        async with aiohttp.ClientSession(timeout=timeout) as session, session.get(self.source) as response:
            if response.status != 200:
                raise ValueError(f"HTTP {response.status}")
            data = await response.content.read(MAX_SET_BYTES + 1)
            if len(data) > MAX_SET_BYTES:
                raise ValueError(f"larger than {MAX_SET_BYTES} bytes")
            return data


def _find(keys: dict[str | None, jwt.PyJWK], key_id: str | None) -> jwt.PyJWK | None:
    if key_id is None and len(keys) == 1:
        return next(iter(keys.values()))
    return keys.get(key_id)
