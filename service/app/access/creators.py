"""Who may create games (--create-policy), and who each creator is: the identity a game
records (GameRecord.created_by) and its creation limits count against.

- open: anyone, known by the client's address (service/app/access/origins.py);
- api-keys: a bearer API key from the keys file, kept hashed (SHA-256: the keys are
  long random strings, so a fast hash is enough and a stolen file gives nothing away);
- jwt: a bearer JWT signed by a key of the JWKS, with the configured issuer and audience.
The admin token may always create, without limits."""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import jwt

from service.app.access.jwks import KeySet, KeySetUnavailable
from service.app.access.origins import ClientAddresses, Origin
from service.app.model.errors import unauthenticated, unavailable

log = logging.getLogger(__name__)

ADMIN_IDENTITY = "admin"
API_KEY_BYTES = 32
KEYS_FILE_CHECK_SECONDS = 5.0  # a changed keys file (a Secret updated) is read again
JWT_LEEWAY_SECONDS = 30  # clocks differ a little between the provider and us
MAX_NAME_LENGTH = 128


@dataclass(frozen=True, slots=True)
class Creator:
    """Who creates a game: the identity it records and is limited under."""

    identity: str
    is_admin: bool = False


ADMIN_CREATOR = Creator(ADMIN_IDENTITY, is_admin=True)


def recorded_creator(created_by: str) -> Creator:
    """The creator a game recorded (GameRecord.created_by), whose limits it counts against."""
    return Creator(created_by, is_admin=created_by == ADMIN_IDENTITY)


class CreationPolicy(Protocol):
    # How clients are told apart by address (--trusted-proxies), whatever the policy:
    # what limits anonymous callers (join-code guesses) counts under it.
    addresses: ClientAddresses

    async def creator(self, token: str, origin: Origin) -> Creator:
        """Who the caller is; raises ServiceError (UNAUTHENTICATED) when they may not create."""
        ...


class OpenCreation:
    """Anyone may create; each client address is one creator."""

    def __init__(self, addresses: ClientAddresses) -> None:
        self.addresses = addresses

    async def creator(self, token: str, origin: Origin) -> Creator:
        return Creator(self.addresses.identity(origin))


def new_api_key() -> str:
    return secrets.token_urlsafe(API_KEY_BYTES)


def hash_api_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def parse_api_keys(text: str) -> dict[str, str]:
    """The keys file: one `<name>:<sha256 hex of the key>` per line, `#` comments.
    Returns hash -> name. Raises ValueError naming the line."""
    keys: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, digest = line.rpartition(":")
        digest = digest.lower()
        if not name or len(name) > MAX_NAME_LENGTH or not name.isprintable():
            raise ValueError(f"line {number}: a key's name is 1 to {MAX_NAME_LENGTH} printable characters")
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            raise ValueError(f"line {number}: not '<name>:<the key's SHA-256 in hex>'")
        keys[digest] = name
    return keys


class ApiKeyCreation:
    """Holders of an API key of the keys file may create; each key is one creator."""

    def __init__(
        self,
        path: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        addresses: ClientAddresses | None = None,
    ) -> None:
        self.addresses = addresses or ClientAddresses()
        self._path = Path(path)
        self._clock = clock
        try:
            self._stamp = self._file_stamp()
            self._keys = parse_api_keys(self._path.read_text())
        except (OSError, ValueError) as error:
            raise ValueError(f"API keys file {path}: {error}") from None
        self._checked_at = clock()

    def _file_stamp(self) -> tuple[int, int]:
        stat = self._path.stat()  # follows the symlinks a mounted Secret swaps on update
        return stat.st_mtime_ns, stat.st_size

    def _reload_if_changed(self) -> None:
        now = self._clock()
        if now - self._checked_at < KEYS_FILE_CHECK_SECONDS:
            return
        self._checked_at = now
        try:
            stamp = self._file_stamp()
            if stamp != self._stamp:
                self._keys = parse_api_keys(self._path.read_text())
                self._stamp = stamp
                log.info("API keys file read again: %d keys", len(self._keys))
        except (OSError, ValueError) as error:
            log.error("API keys file %s cannot be read again (keeping the keys read before): %s", self._path, error)

    async def creator(self, token: str, origin: Origin) -> Creator:
        if not token:
            raise unauthenticated("Send an API key (authorization: Bearer <key>) to create a game.")
        self._reload_if_changed()
        digest = hash_api_key(token)
        for known, name in self._keys.items():  # compared in constant time, key by key
            if hmac.compare_digest(known, digest):
                return Creator(f"key:{name}")
        raise unauthenticated("That API key is not valid.")


class JwtCreation:
    """Bearers of a JWT signed by a key of the JWKS, for our audience, from our issuer,
    may create; each subject (`sub`) is one creator."""

    def __init__(self, keys: KeySet, issuer: str, audience: str, addresses: ClientAddresses | None = None) -> None:
        if not issuer or not audience:
            raise ValueError("the jwt creation policy needs --jwt-issuer and --jwt-audience")
        self.addresses = addresses or ClientAddresses()
        self._keys = keys
        self._issuer = issuer
        self._audience = audience

    async def creator(self, token: str, origin: Origin) -> Creator:
        if not token:
            raise unauthenticated("Send a JWT (authorization: Bearer <token>) to create a game.")
        try:
            header = jwt.get_unverified_header(token)
            key = await self._keys.key(header.get("kid"))
            claims = jwt.decode(
                token,
                key,
                algorithms=[key.algorithm_name],
                audience=self._audience,
                issuer=self._issuer,
                leeway=JWT_LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except KeySetUnavailable as error:
            raise unavailable(f"The keys that check tokens cannot be fetched now: {error}") from None
        except KeyError:
            raise unauthenticated("That token is signed by a key this server does not know.") from None
        except jwt.PyJWTError as error:
            raise unauthenticated(f"That token is not valid: {error}.") from None
        subject = claims["sub"]
        if not isinstance(subject, str) or not subject or len(subject) > MAX_NAME_LENGTH:
            raise unauthenticated("That token's subject (sub) is not valid.")
        return Creator(f"jwt:{subject}")


def creation_policy(
    name: str,
    *,
    addresses: ClientAddresses,
    api_keys_file: str = "",
    jwks: str = "",
    issuer: str = "",
    audience: str = "",
) -> CreationPolicy:
    """The policy named by --create-policy. Raises ValueError when it cannot work."""
    if name == "open":
        return OpenCreation(addresses)
    if name == "api-keys":
        if not api_keys_file:
            raise ValueError("the api-keys creation policy needs --api-keys-file")
        return ApiKeyCreation(api_keys_file, addresses=addresses)
    if name == "jwt":
        if not jwks:
            raise ValueError("the jwt creation policy needs --jwks (a file or an https:// URL)")
        try:
            return JwtCreation(KeySet(jwks), issuer, audience, addresses)
        except OSError as error:
            raise ValueError(f"JWKS {jwks}: {error}") from None
    raise ValueError(f"unknown creation policy {name!r}: use open, api-keys or jwt")
