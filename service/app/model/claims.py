"""What the caller says it has seen of a game, and its proof: the highest version any
server gave it (`known_version` on the calls and the Play join) with that version's
receipt (`known_receipt`), for the request's duration.

A server finding its store behind that version knows the store lost versions it may
never have seen itself (another process acknowledged them, or this one before a
restart), and records the loss instead of giving their numbers to other moves
(LossChecks.vouch, docs/DURABILITY.md); one finding the store holds another event at
that version than the receipt names knows the number was used again, the history forked
(LossChecks.check_event). A version counts only with its receipt: every
answer that tells a caller a version of a game carries one (`receipt`), the service's
HMAC over the game, the version and the fingerprint of the event stored at that version
(the CRC-32 that marks.py keeps), signed with a key derived from the token secret
(`Receipts`), so any process of the deployment checks it and no caller can make one
up. A claim without a valid receipt changes nothing (`Claim.proven` is False): no loss,
no version skipped, a metric and a warning at most once a minute (`Unproven`).

A receipt holds the event's fingerprint masked by a pad only the service can compute:
a server whose store lost that version still learns which event was acknowledged, and
a caller learns nothing of the event (a fingerprint in the clear would let one try the
hidden cards an event could hold until one matches)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

log = logging.getLogger(__name__)

MAX_CLAIMED = 1000  # versions a proven claim may be past the store's and still be believed
RECEIPT_PURPOSE = "receipts"  # the derived key's purpose (TokenAuthority.derived_keys)
MAC_BYTES = 16  # of the HMAC-SHA256 a receipt keeps: forging one is a 2^-128 guess
RECEIPT_CHARS = 27  # base64url of the masked fingerprint (4 bytes) and the MAC, unpadded
UNPROVEN_LOG_INTERVAL_S = 60.0  # claims without proof are logged once in so long at most


@dataclass(frozen=True, slots=True)
class Claim:
    """A caller's claim to have been given `known_version` of `game_id`; `event_crc`:
    the fingerprint of the event at that version its receipt proves (None: no valid
    receipt, the claim counts for nothing)."""

    game_id: str
    known_version: int
    event_crc: int | None = None

    @property
    def proven(self) -> bool:
        return self.event_crc is not None


class Receipts:
    """Signs receipts and checks them, with one key per token secret in use (`keys`,
    the current one first: receipts are signed with it, checked with any, so a
    receipt survives a rotation of the secret as tokens do)."""

    def __init__(self, keys: Sequence[bytes]) -> None:
        if not keys:
            raise ValueError("receipts need a key")
        self._keys = tuple(keys)

    def sign(self, game_id: str, version: int, event_crc: int) -> str:
        """The receipt of `version` of the game, whose stored event's CRC-32 is `event_crc`."""
        key = self._keys[0]
        masked = event_crc ^ _pad(key, game_id, version)
        body = masked.to_bytes(4, "big") + _mac(key, game_id, version, event_crc)
        return base64.urlsafe_b64encode(body).rstrip(b"=").decode()

    def proof(self, game_id: str, version: int, receipt: str) -> int | None:
        """The fingerprint of the event at `version` that `receipt` proves a server
        acknowledged, or None when it proves nothing (made up, of another game or version)."""
        if len(receipt) != RECEIPT_CHARS or not receipt.isascii():
            return None
        try:
            body = base64.urlsafe_b64decode(receipt + "=")
        except (binascii.Error, ValueError):
            return None
        masked, mac = int.from_bytes(body[:4], "big"), body[4:]
        for key in self._keys:
            event_crc = masked ^ _pad(key, game_id, version)
            if hmac.compare_digest(mac, _mac(key, game_id, version, event_crc)):
                return event_crc
        return None


def _pad(key: bytes, game_id: str, version: int) -> int:
    digest = hmac.new(key, f"pad {game_id}:{version}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big")


def _mac(key: bytes, game_id: str, version: int, event_crc: int) -> bytes:
    return hmac.new(key, f"receipt {game_id}:{version}:{event_crc}".encode(), hashlib.sha256).digest()[:MAC_BYTES]


_current: ContextVar[Claim | None] = ContextVar("ludotheque_claim", default=None)


def claim_of(game_id: str) -> Claim | None:
    """The current caller's claim about `game_id`, if it made one."""
    claim = _current.get()
    return claim if claim is not None and claim.game_id == game_id else None


@contextmanager
def claiming(claim: Claim | None) -> Iterator[None]:
    """Makes the caller's claim the current one for the body (None: nothing changes)."""
    if claim is None:
        yield
        return
    token = _current.set(claim)
    try:
        yield
    finally:
        _current.reset(token)


class Unproven:
    """Claims past the store's version without a valid receipt, logged at most once
    every UNPROVEN_LOG_INTERVAL_S (a caller sending them in a loop must not flood the
    logs; `ludotheque_unproven_claims_total` counts them all)."""

    def __init__(self) -> None:
        self._logged_at = -UNPROVEN_LOG_INTERVAL_S
        self._since_logged = 0

    def heard(self, game_id: str, known: int, version: int) -> None:
        self._since_logged += 1
        now = time.monotonic()
        if now - self._logged_at < UNPROVEN_LOG_INTERVAL_S:
            return
        log.warning(
            "game %s: a caller says it was given version %d, the store has %d, without a valid receipt: "
            "not believed (%d such claims since the last warning)",
            game_id,
            known,
            version,
            self._since_logged,
        )
        self._logged_at, self._since_logged = now, 0
