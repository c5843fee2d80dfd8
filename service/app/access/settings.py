"""Who may do what, as a server is configured: the secrets that sign seat tokens, the
admin's token, who may create games, and whose forwarded client addresses to believe."""

from __future__ import annotations

from dataclasses import dataclass

from service.app.access.auth import MIN_SECRET_BYTES
from service.app.access.creators import CreationPolicy, creation_policy
from service.app.access.origins import ClientAddresses, parse_networks
from service.settings import one_of, setting

POLICIES = ("open", "api-keys", "jwt")


def _long_enough(value: str) -> str | None:
    size = len(value.encode())
    if not value or size >= MIN_SECRET_BYTES:
        return None
    return f"is {size} bytes: a secret must be at least {MIN_SECRET_BYTES} (e.g. openssl rand -hex 32)"


@dataclass(frozen=True, slots=True)
class AccessSettings:
    secret: str = setting(
        "",
        "secret that signs seat tokens (at least 32 bytes); every process of one "
        "deployment needs the same. Empty: a random one, so tokens die with the process",
        secret=True,
        check=_long_enough,
    )
    previous_secret: str = setting(
        "",
        "while rotating the secret: the one it replaces (at least 32 bytes); tokens it signed still work",
        secret=True,
        check=_long_enough,
    )
    admin_token: str = setting(
        "",
        "token that sees and may do everything (at least 32 bytes); empty: no admin",
        secret=True,
        check=_long_enough,
    )
    create_policy: str = setting(
        "open",
        "who may create games: 'open' (anyone, counted by address), 'api-keys' (--api-keys-file) "
        "or 'jwt' (--jwks, --jwt-issuer, --jwt-audience); the admin token always may",
        check=one_of(*POLICIES),
    )
    api_keys_file: str = setting("", "api-keys policy: the file of '<name>:<sha256 hex of the key>' lines")
    jwks: str = setting("", "jwt policy: the JSON Web Key Set, a file or an https:// URL (cached, refreshed)")
    jwt_issuer: str = setting("", "jwt policy: the issuer (iss) tokens must come from")
    jwt_audience: str = setting("", "jwt policy: the audience (aud) tokens must be for")
    trusted_proxies: str = setting(
        "",
        "addresses or CIDR ranges of the proxies whose X-Forwarded-For to believe, comma-separated; "
        "empty: none (a client is its peer address)",
    )

    def __post_init__(self) -> None:
        if self.previous_secret and not self.secret:
            raise ValueError("LUDOTHEQUE_PREVIOUS_SECRET needs LUDOTHEQUE_SECRET, the secret that replaces it")

    def addresses(self) -> ClientAddresses:
        """Client addresses, as the trusted proxies tell them. Raises ValueError for a
        proxy that is no address or range."""
        return ClientAddresses(parse_networks(self.trusted_proxies))

    def creation(self) -> CreationPolicy:
        """Who may create games. Raises ValueError when the policy cannot work."""
        return creation_policy(
            self.create_policy,
            addresses=self.addresses(),
            api_keys_file=self.api_keys_file,
            jwks=self.jwks,
            issuer=self.jwt_issuer,
            audience=self.jwt_audience,
        )
