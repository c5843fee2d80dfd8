"""A clock the test moves by hand: the time a GameApp's World, a JWKS cache or an API
key file's reader is given."""

from __future__ import annotations


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
