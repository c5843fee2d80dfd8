"""Mooki Island behind the engine contract (engines/contract.py, engines/adapter.py)."""

from __future__ import annotations

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines import limits
from engines.adapter import GameEngine
from engines.mooki import bots, memory, rules, strong, visibility
from engines.mooki.cards import SEAT_COUNT
from engines.mooki.data import RULES_VERSION
from engines.mooki.state import MookiState

# The class of a stopped game's state (engines/limits.py), named here for pickle and snapshots.
StoppedMookiState = limits.stopped_class(MookiState, __name__)

ENGINE: GameEngine[MookiState, pb.Command, pb.Event, pb.Options, pb.View] = GameEngine(
    kind="mooki",
    rules_version=RULES_VERSION,
    seats=range(SEAT_COUNT, SEAT_COUNT + 1),
    messages=(pb.Command, pb.Event, pb.Options, pb.View),
    state_type=MookiState,
    rules=rules,
    visibility=visibility,
    memory=memory,
    bots={**bots.BOTS, "strong": strong.strong_bot},
    # Games end after 74 events at most (36 cards: a draw and a place each, then the
    # scoring); a server stops one at 1,000 only when configured below that.
    default_event_limit=1_000,
    finished_phase=pb.PHASE_FINISHED,
)
