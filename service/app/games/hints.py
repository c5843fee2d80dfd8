"""GetHint: the move the game's strongest bot would make for the caller's seat now
(engines/hinting.py: `strong` where the game has it, else `greedy`), with one short
reason in the caller's language.

Only a seat asks, on its turn, in a game going on; the bot's search runs in the heavy
work's worker processes (model/heavy_reads.py), never on the event loop that plays the
moves, under that pool's budget. Its draws come from the game's secret seed, the seat
and the version (model/seeding.py), so asking again at one version gives the same hint.
A seat may ask `hint_rate` hints a minute, a client address `hint_client_rate`, counted
in the store's shared sets (every server process alike); past either the answer is
RESOURCE_EXHAUSTED (HTTP 429 with Retry-After). A hint is read from what the seat may
know only (tests/engines/test_hints.py tries two worlds)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from google.rpc import error_details_pb2
from ludotheque.v1 import game_service_pb2

from engines.contract import Role, Viewer
from engines.describers import DESCRIBERS
from engines.hinting import hint
from engines.phrases import Phrase
from engines.registry import GAMES
from service.app.access.kit import Kit, UseCase
from service.app.access.limits import WINDOW_MS
from service.app.model.errors import DOMAIN, MESSAGE_KEY, Code, ServiceError, resource_exhausted
from service.app.model.heavy_reads import HeavyReads
from service.app.model.live_game import LiveGame
from service.app.model.seeding import game_rng, hint_purpose
from service.app.model.stored import store_errors
from service.app.views import views
from service.settings import at_least, setting
from service.store.base import SharedSets

# Why a hint is refused, for programs (ErrorInfo.reason); each has its words for people,
# "hint.refusal.<reason in lower case>" in seeds/locales/.
REFUSALS = ("NOT_A_SEAT", "GAME_NOT_STARTED", "GAME_OVER", "NOT_YOUR_TURN")


@dataclass(frozen=True, slots=True)
class HintSettings:
    """How many hints may be asked."""

    per_seat: int = setting(
        10,
        "hints (GetHint) one seat of a game may ask per minute; one more is refused with "
        "RESOURCE_EXHAUSTED (HTTP 429, Retry-After); 0: no limit",
        name="hint_rate",
        check=at_least(0),
    )
    per_client: int = setting(
        30,
        "hints one client address (an IPv6 client by its /64) may ask per minute, on any games; 0: no limit",
        name="hint_client_rate",
        check=at_least(0),
    )


def refusal_key(reason: str) -> str:
    return f"hint.refusal.{reason.lower()}"


def refused(reason: str, description: str, code: Code = Code.FAILED_PRECONDITION) -> ServiceError:
    """A hint refused: `reason` names it for programs, its message key for people."""
    key = refusal_key(reason)
    details: list[Message] = [error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata={MESSAGE_KEY: key})]
    if code is Code.FAILED_PRECONDITION:
        violation = error_details_pb2.PreconditionFailure.Violation(
            type="HINT", subject=reason.lower(), description=description
        )
        details.insert(0, error_details_pb2.PreconditionFailure(violations=[violation]))
    return ServiceError(code, description, details, key=key)


def hint_in_worker(kind: str, state: Any, seat: int, seed: int, version: int) -> tuple[bytes, Phrase, str]:
    """A worker's job: the hint for `seat` in a `kind` game's `state` at `version`, its
    draws from the game's seed: (the command's bytes, the reason, the bot's name)."""
    engine = GAMES[kind].engine
    found = hint(engine, DESCRIBERS[kind], state, seat, game_rng(seed, hint_purpose(seat), version))
    return found.command.SerializeToString(), found.reason, found.bot


class Hints(UseCase):
    """GetHint."""

    def __init__(
        self,
        kit: Kit,
        heavy: HeavyReads,
        counts: SharedSets,
        settings: HintSettings | None = None,
        calling: Callable[[], str] = lambda: "",
    ) -> None:
        """`counts`: the store's shared sets, where the rates are counted; `calling`:
        the client address of the call being served ("": unknown)."""
        super().__init__(kit)
        self._heavy = heavy
        self._counts = counts
        self.settings = settings or HintSettings()
        self._calling = calling

    async def get_hint(self, request: game_service_pb2.GetHintRequest, token: str) -> game_service_pb2.GetHintResponse:
        live, viewer = await self._open(request.game_id, token)
        seat = self._asking_seat(live, viewer)
        await self._admit(live.game_id, seat)
        state, version, engine = live.state, live.version, live.engine
        data, reason, bot = await self._heavy.run(
            "GetHint", token, hint_in_worker, engine.kind, state, seat, live.record.seed, version
        )
        audience = views.audience_for(live, viewer, request.locale)
        command = engine.command_type.FromString(data)
        response = game_service_pb2.GetHintResponse(version=version, bot=bot)
        for legal in views.legal_commands(engine, state, viewer, audience):
            if getattr(legal, engine.kind) == command:  # the move as legal_commands tells it
                response.command.CopyFrom(legal)
                break
        else:
            raise ServiceError(Code.INTERNAL, f"the {bot} bot hinted a move that is not legal: {command}")
        audience.words.describe(reason, audience.names, into=response.reason)
        return response

    def _asking_seat(self, live: LiveGame, viewer: Viewer) -> int:
        """The seat asking, when it may: a seat's token, on its turn in a game going on."""
        if viewer.role is not Role.SEAT or viewer.seat is None:
            if not viewer.is_admin:
                raise ServiceError(Code.UNAUTHENTICATED, "A hint is for a player: send your seat's token.")
            raise refused("NOT_A_SEAT", "A hint is for a seat: the admin plays none.", Code.PERMISSION_DENIED)
        if not live.table.started:
            raise refused("GAME_NOT_STARTED", "The game has not started yet: its seats are still open.")
        status = live.status
        if status.finished:
            raise refused("GAME_OVER", "The game is over: there is no move to hint.")
        if viewer.seat not in status.to_act:
            raise refused("NOT_YOUR_TURN", f"It is not seat {viewer.seat}'s turn: a hint comes on your turn.")
        return viewer.seat

    async def _admit(self, game_id: str, seat: int) -> None:
        """Counts one hint against the seat's rate and the client's; past either,
        RESOURCE_EXHAUSTED."""
        settings, now, member = self.settings, self._now_ms(), uuid.uuid4().hex
        client = self._calling()
        limits = [(f"hints:{game_id}:{seat}", settings.per_seat, "HINT_RATE", "this seat")]
        if client:
            limits.append((f"hints-client:{client}", settings.per_client, "HINT_CLIENT_RATE", "you"))
        for key, rate, reason, who in limits:
            if not rate:
                continue
            with store_errors():
                admission = await self._counts.admit(key, member, rate, now, WINDOW_MS)
            if not admission.admitted:
                raise resource_exhausted(
                    reason,
                    key,
                    f"{rate} hints a minute is the most for {who}: think a little, then ask again.",
                    admission.retry_after_ms if admission.retry_after_ms is not None else WINDOW_MS,
                )
