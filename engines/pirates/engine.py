"""Pirates & Compagnie behind the engine contract (engines/contract.py, engines/adapter.py)."""

from __future__ import annotations

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines import limits
from engines.adapter import GameEngine
from engines.pirates import bots, rules, visibility
from engines.pirates.cards import MAX_SEATS, MIN_SEATS
from engines.pirates.data import RULES_VERSION
from engines.pirates.state import PiratesState

# The class of a stopped game's state (engines/limits.py), named here for pickle and snapshots.
StoppedPiratesState = limits.stopped_class(PiratesState, __name__)

ENGINE: GameEngine[PiratesState, pb.Command, pb.Event, pb.Options, pb.View] = GameEngine(
    kind="pirates",
    rules_version=RULES_VERSION,
    seats=range(MIN_SEATS, MAX_SEATS + 1),
    messages=(pb.Command, pb.Event, pb.Options, pb.View),
    state_type=PiratesState,
    rules=rules,
    visibility=visibility,
    # No `strong` bot: the search tried (docs/GAMES.md, "The bots") lost to greedy.
    bots=bots.BOTS,
    # Measured (scripts/game_lengths.py, pirates/2) over 100 games per seat count:
    # greedy bots end in 400 to 1,311 events, mixed greedy and random 440 to 1,257;
    # random bots, which draw rather than lay, need 3,300 (median) to 6,314.
    default_event_limit=10_000,
    finished_phase=pb.PHASE_FINISHED,
    stopped_scores=lambda state: state.ships,  # the spaces each ship had sailed
)
