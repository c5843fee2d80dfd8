"""engines/evolving.py: an event goes to the rule of its kind, with its message of that
kind; a kind without a rule changes nothing, a stopped game nothing at all, and a rule
for a kind the game's Event does not have is refused when the rules are listed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines import limits
from engines.evolving import Rule, by_kind


@dataclass(frozen=True, slots=True)
class Seen:
    seats: tuple[int, ...] = ()


def _turn_passed(state: Seen, passed: pb.TurnPassed) -> Seen:
    return Seen((*state.seats, passed.next_seat))


RULES: dict[str, Rule[Seen]] = {"turn_passed": _turn_passed, "game_stopped": limits.game_stopped}
evolve = by_kind(pb.Event, RULES)


def test_an_event_goes_to_the_rule_of_its_kind_with_its_message() -> None:
    assert evolve(Seen(), pb.Event(turn_passed=pb.TurnPassed(next_seat=2))) == Seen((2,))


def test_a_kind_without_a_rule_and_an_empty_event_change_nothing() -> None:
    state = Seen((1,))
    assert evolve(state, pb.Event(round_won=pb.RoundWon(seat=1))) is state
    assert evolve(state, pb.Event()) is state


def test_nothing_changes_a_stopped_game() -> None:
    stopped = evolve(Seen((1,)), pb.Event(game_stopped=pb.GameStopped(event_limit=9)))
    assert stopped.seats == (1,)
    assert isinstance(stopped, limits.Stopped) and stopped.event_limit == 9
    assert evolve(stopped, pb.Event(turn_passed=pb.TurnPassed(next_seat=2))) is stopped


def test_a_rule_for_a_kind_the_event_does_not_have_is_refused() -> None:
    with pytest.raises(ValueError, match="card_placed"):
        by_kind(pb.Event, {"card_placed": RULES["turn_passed"]})
