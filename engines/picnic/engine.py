"""Facteur Souris's picnic behind the engine contract (engines/contract.py, engines/adapter.py)."""

from __future__ import annotations

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines import limits
from engines.adapter import GameEngine
from engines.picnic import bots, memory, rules, strong, visibility
from engines.picnic.data import RULES_VERSION
from engines.picnic.state import PicnicState

# The class of a stopped game's state (engines/limits.py), named here for pickle and snapshots.
StoppedPicnicState = limits.stopped_class(PicnicState, __name__)

ENGINE: GameEngine[PicnicState, pb.Command, pb.Event, pb.Options, pb.View] = GameEngine(
    kind="picnic",
    rules_version=RULES_VERSION,
    seats=range(rules.MIN_SEATS, rules.MAX_SEATS + 1),
    messages=(pb.Command, pb.Event, pb.Options, pb.View),
    state_type=PicnicState,
    rules=rules,
    visibility=visibility,
    memory=memory,
    bots={**bots.BOTS, "strong": strong.strong_bot},
    # Measured (scripts/game_lengths.py, picnic/3) over 300 games per seat count: greedy bots
    # end within 108 events, random ones within 135; players stalling on purpose within 156
    # (every game ends: seeds/picnic/RULES.md, decision 20).
    default_event_limit=2_000,
    finished_phase=pb.PHASE_FINISHED,
)
