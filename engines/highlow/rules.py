"""Higher or Lower's rules as a decider (docs/NEW_GAME.md, step 3): its data, its
state, and setup, decide, evolve, legal_commands and status. Pure: randomness only
from the `rng` given, written into the events (the shuffled deck), no I/O."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ludotheque.highlow.v1 import highlow_pb2 as pb

from engines import limits
from engines.contract import InvalidSetup, RuleViolation, SeatInfo, Status, playing
from engines.data import GameData, load_game_data
from engines.evolving import Rule, by_kind

# Recorded in every event: bump it when a change (code or data) would replay a
# recorded game differently, and pin the data's new digest in seeds/highlow/data-lock.json.
RULES_VERSION = "highlow/1"
DATA: GameData = load_game_data("highlow", RULES_VERSION, ("cards.json",))
CARDS: tuple[int, ...] = tuple(DATA["cards.json"]["cards"])
SEATS = range(2, 5)  # two to four players
CALLS = (pb.CALL_HIGHER, pb.CALL_LOWER)


@dataclass(frozen=True, slots=True)
class HighLowState:
    """Everything, hidden order included: the deck face down (next card first), the
    card face up, the cards turned before it, whose turn, the points, the end."""

    started: bool = False
    ties_win: bool = False
    deck: tuple[int, ...] = ()
    face_up: int = 0
    turned: tuple[int, ...] = ()
    to_act: int = 0
    points: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    finished: bool = False


def resolve_options(options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
    if len(seats) not in SEATS:
        raise InvalidSetup(f"Higher or Lower is for 2 to 4 players, not {len(seats)}.")
    resolved = pb.Options()
    resolved.CopyFrom(options)
    return resolved


def setup(options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
    deck = list(CARDS)
    rng.shuffle(deck)
    started = pb.GameStarted(
        data_digest=DATA.digest, options=options, seat_count=len(seats), deck=deck, face_up=deck[0]
    )
    return [pb.Event(game_started=started)]


def decide(state: HighLowState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
    if not state.started:
        raise RuleViolation("not_started", "The game has not started.")
    if state.finished:
        raise RuleViolation("game_over", "The game is over.")
    if seat != state.to_act:
        raise RuleViolation("not_your_turn", "It is not your turn.")
    if command.WhichOneof("action") != "guess":
        raise RuleViolation("unknown_command", "Call higher or lower.")
    call = command.guess.call
    if call not in CALLS:
        raise RuleViolation("unknown_call", "Call higher or lower.")
    card = state.deck[0]
    right = (card > state.face_up) if call == pb.CALL_HIGHER else (card < state.face_up)
    right = right or (state.ties_win and card == state.face_up)
    events = [pb.Event(card_turned=pb.CardTurned(seat=seat, call=call, card=card, right=right))]
    if len(state.deck) == 1:  # the last card: the most points win
        points = list(state.points)
        points[seat] += right
        best = max(points)
        winners = [s for s, p in enumerate(points) if p == best]
        events.append(pb.Event(game_finished=pb.GameFinished(winners=winners, points=best)))
    return events


def _game_started(state: HighLowState, started: pb.GameStarted) -> HighLowState:
    DATA.require(started.data_digest)  # replayed with the data it was dealt with, or not at all
    return HighLowState(
        started=True,
        ties_win=started.options.ties_win,
        deck=tuple(started.deck[1:]),
        face_up=started.deck[0],
        points=(0,) * started.seat_count,
    )


def _card_turned(state: HighLowState, turned: pb.CardTurned) -> HighLowState:
    points = list(state.points)
    points[turned.seat] += turned.right
    return replace(
        state,
        deck=state.deck[1:],
        face_up=turned.card,
        turned=(*state.turned, state.face_up),
        to_act=(turned.seat + 1) % len(points),
        points=tuple(points),
    )


def _game_finished(state: HighLowState, finished: pb.GameFinished) -> HighLowState:
    return replace(state, finished=True, winners=tuple(finished.winners))


# Each kind of event's rule, above; evolve applies the rule of an event's kind.
_EVOLVE: dict[str, Rule[HighLowState]] = {
    "game_started": _game_started,
    "card_turned": _card_turned,
    "game_finished": _game_finished,
    "game_stopped": limits.game_stopped,  # every game's: it stops where it stands
}
evolve = by_kind(pb.Event, _EVOLVE)


def legal_commands(state: HighLowState, seat: int) -> list[pb.Command]:
    if not state.started or state.finished or seat != state.to_act:
        return []
    return [pb.Command(guess=pb.Guess(call=call)) for call in CALLS]


def status(state: HighLowState) -> Status:
    if not state.finished:
        return playing(state.to_act if state.started else None)
    best = state.points[state.winners[0]]
    who = " and ".join(f"{{{seat}}}" for seat in state.winners)
    verb = "wins" if len(state.winners) == 1 else "share the win"
    return Status(
        finished=True, winners=state.winners, scores=state.points, summary=f"{who} {verb} with {best} points."
    )
