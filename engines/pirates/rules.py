"""Pirates & Compagnie's rules as a decider: setup, decide, evolve, legal_commands, status.

Read beside seeds/pirates/RULES.md, which names the test of each rule."""

from __future__ import annotations

import functools
import random
from bisect import insort
from collections.abc import Sequence

from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines import limits
from engines.contract import InvalidSetup, RuleViolation, SeatInfo, Status, playing
from engines.evolving import Rule, by_kind
from engines.immutable import own_copy, put, replacer
from engines.pirates.cards import (
    CARDS,
    COLOUR_NAMES,
    COLOURS,
    DECK,
    DEFAULT_ISLAND_DISTANCE,
    HAND_SIZE,
    MAX_SEATS,
    MIN_SEATS,
    SPECIAL_KINDS,
    Card,
    KindId,
    fits,
)
from engines.pirates.data import DATA
from engines.pirates.state import CLOCKWISE, COUNTERCLOCKWISE, PiratesState

# dataclasses.replace, without its per-call introspection (engines/immutable.py).
replace = replacer(PiratesState)

MAX_ISLAND_DISTANCE = 20
BOTTLE_DRAW = 2
OHE_PENALTY = 1
# How many times a round's draw pile may be rebuilt by default (Options.rebuilds_per_round).
DEFAULT_REBUILDS = 3
MAX_REBUILDS = 20

_ENUM_DEFAULTS = {
    "bottle_chain": (pb.BOTTLE_CHAIN_PASS, pb.BottleChain),
    "bottle_follow_up": (pb.BOTTLE_FOLLOW_UP_DRAWN, pb.BottleFollowUp),
    "next_round_starter": (pb.NEXT_ROUND_STARTER_AFTER_WINNER, pb.NextRoundStarter),
}

# --- setup -----------------------------------------------------------------------


def resolve_options(options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
    count = len(seats)
    if not MIN_SEATS <= count <= MAX_SEATS:
        raise InvalidSetup(f"Pirates & Compagnie is for 2 to 4 players, not {count}.")
    resolved = pb.Options()
    resolved.CopyFrom(options)
    if not resolved.HasField("first_seat"):
        resolved.first_seat = 0
    elif resolved.first_seat >= count:
        raise InvalidSetup(f"first_seat must be a seat, 0 to {count - 1}, not {resolved.first_seat}.")
    if resolved.island_distance == 0:
        resolved.island_distance = DEFAULT_ISLAND_DISTANCE
    elif resolved.island_distance > MAX_ISLAND_DISTANCE:
        raise InvalidSetup(f"island_distance is 1 to {MAX_ISLAND_DISTANCE} spaces, not {resolved.island_distance}.")
    if resolved.rebuilds_per_round == 0:
        resolved.rebuilds_per_round = DEFAULT_REBUILDS
    elif resolved.rebuilds_per_round > MAX_REBUILDS:
        raise InvalidSetup(f"rebuilds_per_round is 1 to {MAX_REBUILDS}, not {resolved.rebuilds_per_round}.")
    removed = list(resolved.removed_specials)
    if any(kind not in SPECIAL_KINDS for kind in removed):
        raise InvalidSetup("removed_specials: only SAILBOAT, BOTTLE, SLEEPING_PIRATE and PARROT can be removed.")
    if len(set(removed)) != len(removed):
        raise InvalidSetup("removed_specials: each kind at most once.")
    resolved.removed_specials[:] = sorted(removed)
    for field, (default, enum) in _ENUM_DEFAULTS.items():
        value = getattr(resolved, field)
        if value == 0:
            setattr(resolved, field, default)
        elif value not in enum.values():
            raise InvalidSetup(f"Unknown {field} {value}.")
    return resolved


@functools.cache
def cards_in_play(removed_kinds: tuple[KindId, ...]) -> tuple[Card, ...]:
    """The sorted cards a game plays with, once the removed special kinds are boxed."""
    return tuple(card for card in DECK if card.kind not in removed_kinds)


def _in_play(options: pb.Options) -> tuple[Card, ...]:
    return cards_in_play(tuple(options.removed_specials))


def setup(options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
    removed = [card.to_proto() for card in DECK if card.kind in options.removed_specials]
    started = pb.GameStarted(options=options, seat_count=len(seats), removed=removed, data_digest=DATA.digest)
    first_round = deal_round(_in_play(options), len(seats), 1, options.first_seat, options.open_hands, rng)
    return [pb.Event(game_started=started), first_round]


def deal_round(
    cards: Sequence[Card], seat_count: int, round_number: int, first_seat: int, open_hands: bool, rng: random.Random
) -> pb.Event:
    """Shuffle every card in play, deal five to each seat, and turn up the first
    pirate card: specials turned up on the way go under the draw pile.

    `cards` must come in a fixed order (sorted), so that the deal depends only on
    the random numbers drawn, never on where the cards were before."""
    order = list(cards)
    rng.shuffle(order)
    dealt = pb.RoundDealt(round=round_number, first_seat=first_seat, open_hands=open_hands)
    for seat in range(seat_count):
        hand = sorted(order[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])
        dealt.hands.add(seat=seat, size=len(hand), cards=[card.to_proto() for card in hand])
    pile = order[seat_count * HAND_SIZE :]
    turned_under = []
    while not pile[0].is_pirate:  # 36 pirate cards: at least 16 remain after the deal
        turned_under.append(pile.pop(0))
    dealt.discard.CopyFrom(pile.pop(0).to_proto())
    pile += turned_under
    dealt.turned_under.extend(card.to_proto() for card in turned_under)
    dealt.draw_pile.extend(card.to_proto() for card in pile)
    dealt.draw_pile_size = len(pile)
    return pb.Event(round_dealt=dealt)


# --- decide ------------------------------------------------------------------------


def decide(state: PiratesState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
    if state.phase == pb.PHASE_UNSPECIFIED:
        raise RuleViolation("not_started", "The cards have not been dealt yet.")
    if state.phase == pb.PHASE_FINISHED:
        raise RuleViolation("game_over", "The game is over.")
    if seat != state.active_seat:
        raise RuleViolation("not_your_turn", f"It is seat {state.active_seat}'s turn, not seat {seat}'s.")
    action = command.WhichOneof("action")
    if action == "play":
        return _play(state, seat, command.play, rng)
    if action == "draw":
        return _draw(state, seat, rng)
    if action == "end_turn":
        return _end_turn(state, seat)
    raise RuleViolation("unknown_command", "That is not a Pirates & Compagnie move.")


def _play(state: PiratesState, seat: int, play: pb.Play, rng: random.Random) -> list[pb.Event]:
    card = Card.from_proto(play.card)
    hand = state.hands[seat]
    if card not in hand:
        raise RuleViolation("not_in_hand", f"You have no {card} in your hand.")
    if state.phase == pb.PHASE_BOTTLE and card.kind != pb.CARD_KIND_BOTTLE:
        raise RuleViolation(
            "answer_the_bottle",
            f"A Bottle was laid: draw {state.draw_penalty} cards, or answer with a Bottle of your own.",
        )
    if state.phase == pb.PHASE_DRAWN and card not in may_lay(state, seat):
        raise RuleViolation("only_drawn_cards", "After drawing, you may only lay a card you just drew.")
    _check_fits(card, state)
    if card.is_parrot and play.announce not in COLOURS:
        raise RuleViolation("announce_a_colour", "Say which colour the next player must follow.")
    if not card.is_parrot and play.announce != pb.COLOUR_UNSPECIFIED:
        raise RuleViolation("nothing_to_announce", "Only a Parrot announces a colour.")
    options = _options(state)
    left = len(hand) - 1
    if play.call_ohe and not options.ohe_variant:
        raise RuleViolation("ohe_not_played", "This game is played without the “ohé!” variant.")
    if play.call_ohe and left > 1:
        raise RuleViolation("nothing_to_call", "Call “ohé!” only as you go down to one card, or lay your last.")
    played = pb.CardPlayed(
        seat=seat, card=card.to_proto(), announced=play.announce, called_ohe=play.call_ohe, hand_size=left
    )
    events = [pb.Event(card_played=played)]
    after = evolve(state, events[0])
    forgot_ohe = options.ohe_variant and left <= 1 and not play.call_ohe
    if forgot_ohe:
        # The card just covered can always be shuffled into a penalty card, unless
        # the pile may not be rebuilt again this round: then the round ends.
        penalty = _draw_cards(after, seat, OHE_PENALTY, pb.DRAW_REASON_OHE, rng)
        if penalty is None:
            return events + _pile_exhausted(after, seat, rng)
        events += penalty
    elif left == 0:
        return events + _win_round(after, seat, pb.ROUND_END_LAST_CARD, rng)
    return [*events, pb.Event(turn_passed=_turn_after(state, seat, card))]


def _check_fits(card: Card, state: PiratesState) -> None:
    top = state.top
    if fits(card, top, state.announced):
        return
    if card.is_parrot:
        raise RuleViolation("parrot_on_parrot", "A Parrot cannot go on another Parrot.")
    if top.is_parrot:
        colour = COLOUR_NAMES[state.announced]
        raise RuleViolation("follow_the_parrot", f"The Parrot asked for {colour}: lay a {colour} card, or draw.")
    raise RuleViolation("does_not_fit", f"The {card} matches neither the colour nor the pirate of the {top}.")


def _turn_after(state: PiratesState, seat: int, card: Card) -> pb.TurnPassed:
    """Who plays after `seat` laid `card`, and what they face."""
    count, direction = state.seat_count, state.direction
    passed = pb.TurnPassed(seat=seat)
    if card.kind == pb.CARD_KIND_SAILBOAT:
        direction = -direction
        if count == 2:  # with two players, turning around means playing again
            passed.skipped_seat = 1 - seat
            next_seat = seat
        else:
            next_seat = (seat + direction) % count
    elif card.kind == pb.CARD_KIND_SLEEPING_PIRATE:
        passed.skipped_seat = (seat + direction) % count
        next_seat = (seat + 2 * direction) % count
    else:
        next_seat = (seat + direction) % count
    if card.kind == pb.CARD_KIND_BOTTLE:
        stacked = state.draw_penalty if _options(state).bottle_chain == pb.BOTTLE_CHAIN_STACK else 0
        passed.draw_penalty = stacked + BOTTLE_DRAW
    passed.next_seat = next_seat
    passed.direction = _direction_proto(direction)
    return passed


def _plain_turn_end(state: PiratesState, seat: int) -> pb.Event:
    passed = pb.TurnPassed(
        seat=seat,
        next_seat=(seat + state.direction) % state.seat_count,
        direction=_direction_proto(state.direction),
    )
    return pb.Event(turn_passed=passed)


def _draw(state: PiratesState, seat: int, rng: random.Random) -> list[pb.Event]:
    if state.phase == pb.PHASE_DRAWN:
        raise RuleViolation("already_drawn", "You already drew: lay a card you drew, or end your turn.")
    if layable(state, seat):
        _raise_if_must_lay(state)
    options = _options(state)
    if state.phase == pb.PHASE_BOTTLE:
        events = _draw_cards(state, seat, state.draw_penalty, pb.DRAW_REASON_BOTTLE, rng)
        if events is None:
            return _pile_exhausted(state, seat, rng)
        follow_up = options.bottle_follow_up
        drew = events[-1].cards_drawn.count
        if follow_up == pb.BOTTLE_FOLLOW_UP_NONE or (follow_up == pb.BOTTLE_FOLLOW_UP_DRAWN and not drew):
            events.append(_plain_turn_end(state, seat))
        return events
    events = _draw_cards(state, seat, 1, pb.DRAW_REASON_TURN, rng)
    if events is None:
        return _pile_exhausted(state, seat, rng)
    if not events[-1].cards_drawn.count:  # nothing left to draw (and nothing fits): the turn passes
        events.append(_plain_turn_end(state, seat))
    return events


def must_lay(state: PiratesState) -> RuleViolation | None:
    """Why the active seat, holding a card it may lay now, may not draw or end its
    turn instead (None: it may). The options each make one case compulsory; a draw
    that would find no card at all is never a way to pass while a card fits (or a
    round could go on forever)."""
    options = _options(state)
    if state.phase == pb.PHASE_DRAWN:
        if state.drawn_reason == pb.DRAW_REASON_BOTTLE:
            if options.must_lay_after_bottle:
                return RuleViolation(
                    "must_lay_after_bottle",
                    "A card you may lay fits, so you must lay it (must_lay_after_bottle is on).",
                )
        elif options.must_play:
            return RuleViolation("must_play", "You can lay a card, so you must (must_play is on).")
        return None  # ending a turn draws nothing
    if state.phase == pb.PHASE_BOTTLE:
        if options.must_answer_bottle:
            return RuleViolation(
                "must_answer_bottle", "You hold a Bottle, so you must answer the Bottle (must_answer_bottle is on)."
            )
    elif options.must_play:
        return RuleViolation("must_play", "You can lay a card, so you must (must_play is on).")
    if nothing_to_draw(state):
        return RuleViolation("nothing_to_draw", "There is no card left to draw anywhere: lay a card that fits.")
    return None


def _raise_if_must_lay(state: PiratesState) -> None:
    violation = must_lay(state)
    if violation is not None:
        raise violation


def nothing_to_draw(state: PiratesState) -> bool:
    """No card can be drawn: the draw pile is empty and the discard pile holds only
    its top card (every other card is in a hand or in the box)."""
    return not state.draw_pile and len(state.discard) <= 1


def _draw_cards(
    state: PiratesState, seat: int, wanted: int, reason: pb.DrawReason.ValueType, rng: random.Random
) -> list[pb.Event] | None:
    """Draw `wanted` cards, rebuilding the draw pile from the discard pile first if
    it is short. Drawing the last cards, shuffling, then drawing the rest gives the
    same cards as putting the shuffled cards under the last ones and drawing all.
    None: the pile is short but was rebuilt as often as a round allows (the round
    ends, _pile_exhausted)."""
    events = []
    pile = state.draw_pile
    if len(pile) < wanted and len(state.discard) > 1:
        if state.rebuilds >= _options(state).rebuilds_per_round:
            return None
        shuffled = list(state.discard[:-1])  # the top card stays where it is
        rng.shuffle(shuffled)
        rebuilt = pb.DrawPileRebuilt(
            size=len(shuffled),
            cards=[card.to_proto() for card in shuffled],
            draw_pile_size=len(pile) + len(shuffled),
        )
        events.append(pb.Event(draw_pile_rebuilt=rebuilt))
        pile = pile + tuple(shuffled)
    cards = pile[:wanted]
    drawn = pb.CardsDrawn(
        seat=seat,
        reason=reason,
        count=len(cards),
        cards=[card.to_proto() for card in cards],
        wanted=wanted,
        open_hands=_options(state).open_hands,
    )
    events.append(pb.Event(cards_drawn=drawn))
    return events


def _end_turn(state: PiratesState, seat: int) -> list[pb.Event]:
    if state.phase != pb.PHASE_DRAWN:
        raise RuleViolation("nothing_drawn", "Lay a card or draw one; a turn ends without laying only after drawing.")
    if layable(state, seat):
        _raise_if_must_lay(state)
    return [_plain_turn_end(state, seat)]


def _pile_exhausted(state: PiratesState, seat: int, rng: random.Random) -> list[pb.Event]:
    """`seat` must draw, but the draw pile may not be rebuilt again this round: the
    round ends, won by the fewest cards (on equal counts, the first of them in the
    direction of play, starting with `seat`)."""
    order = [(seat + step * state.direction) % state.seat_count for step in range(state.seat_count)]
    winner = min(order, key=lambda other: len(state.hands[other]))  # min keeps the first of equals
    return _win_round(state, winner, pb.ROUND_END_PILE_EXHAUSTED, rng)


def _win_round(state: PiratesState, seat: int, end: pb.RoundEnd.ValueType, rng: random.Random) -> list[pb.Event]:
    ships = list(state.ships)
    ships[seat] += 1
    won = pb.RoundWon(
        seat=seat, round=state.round, ships=ships, end=end, hand_sizes=[len(hand) for hand in state.hands]
    )
    events = [pb.Event(round_won=won)]
    options = _options(state)
    if ships[seat] >= options.island_distance:
        return [*events, pb.Event(game_won=pb.GameWon(seat=seat, ships=ships, rounds=state.round))]
    first_seat = next_round_starter(state, seat)
    return [
        *events,
        deal_round(_in_play(options), state.seat_count, state.round + 1, first_seat, options.open_hands, rng),
    ]


def next_round_starter(state: PiratesState, winner: int) -> int:
    rule = _options(state).next_round_starter
    if rule == pb.NEXT_ROUND_STARTER_WINNER:
        return winner
    if rule == pb.NEXT_ROUND_STARTER_ROTATE:
        return (state.round_first_seat + 1) % state.seat_count
    return (winner + 1) % state.seat_count


def _options(state: PiratesState) -> pb.Options:
    assert state.options is not None, "the game has started"
    return state.options


def _direction_proto(direction: int) -> pb.Direction.ValueType:
    return pb.DIRECTION_CLOCKWISE if direction == CLOCKWISE else pb.DIRECTION_COUNTERCLOCKWISE


# --- evolve ------------------------------------------------------------------------


def _game_started(state: PiratesState, started: pb.GameStarted) -> PiratesState:
    """The ships line up on their first cross; the special kinds taken out stay in the box."""
    DATA.require(started.data_digest)
    return PiratesState(
        options=own_copy(started.options),
        seat_count=started.seat_count,
        removed=CARDS.of_field(started, "removed"),
        ships=(0,) * started.seat_count,
    )


def _round_dealt(state: PiratesState, dealt: pb.RoundDealt) -> PiratesState:
    """Five secret cards each, the rest the draw pile, a pirate card turned up on the
    discard pile; play goes clockwise from the round's first player."""
    hands: list[tuple[Card, ...]] = [()] * state.seat_count
    for hand in dealt.hands:
        hands[hand.seat] = CARDS.of_field(hand, "cards")
    return replace(
        state,
        phase=pb.PHASE_PLAY,
        round=dealt.round,
        round_first_seat=dealt.first_seat,
        hands=tuple(hands),
        draw_pile=CARDS.of_field(dealt, "draw_pile"),
        discard=(CARDS.of(dealt.discard),),
        active_seat=dealt.first_seat,
        direction=CLOCKWISE,
        announced=pb.COLOUR_UNSPECIFIED,
        draw_penalty=0,
        drawn=(),
        drawn_reason=pb.DRAW_REASON_UNSPECIFIED,
        rebuilds=0,
    )


def _card_played(state: PiratesState, played: pb.CardPlayed) -> PiratesState:
    """The card leaves the hand for the top of the discard pile (a Parrot says which
    colour must follow); whatever was drawn this turn is now in the hand or on the pile."""
    card = CARDS.of(played.card)
    return replace(
        state,
        hands=put(state.hands, played.seat, _without(state.hands[played.seat], card)),
        discard=(*state.discard, card),
        announced=played.announced,
        drawn=(),
    )


def _cards_drawn(state: PiratesState, taken: pb.CardsDrawn) -> PiratesState:
    """The top cards of the draw pile go into the hand (decide draws them there, after
    any rebuild's event: they are taken from the state, not read from the event). Drawn
    for the turn or for a Bottle, they are the ones the player may lay now; a penalty
    for a forgotten "ohé!" changes nothing else."""
    cards = state.draw_pile[: taken.count]
    hands = put(state.hands, taken.seat, _into(state.hands[taken.seat], cards))
    if taken.reason == pb.DRAW_REASON_OHE:
        return replace(state, hands=hands, draw_pile=state.draw_pile[taken.count :])
    return replace(
        state,
        phase=pb.PHASE_DRAWN,
        hands=hands,
        draw_pile=state.draw_pile[taken.count :],
        draw_penalty=0,
        drawn=cards,
        drawn_reason=taken.reason,
    )


def _draw_pile_rebuilt(state: PiratesState, rebuilt: pb.DrawPileRebuilt) -> PiratesState:
    """The discard pile but its top card, shuffled, goes under the draw pile."""
    return replace(
        state,
        draw_pile=state.draw_pile + CARDS.of_field(rebuilt, "cards"),
        discard=state.discard[-1:],
        rebuilds=state.rebuilds + 1,
    )


def _turn_passed(state: PiratesState, passed: pb.TurnPassed) -> PiratesState:
    """The next player's turn, in the direction of play; a Bottle's penalty, if any,
    is theirs to draw or to answer."""
    return replace(
        state,
        phase=pb.PHASE_BOTTLE if passed.draw_penalty else pb.PHASE_PLAY,
        active_seat=passed.next_seat,
        direction=CLOCKWISE if passed.direction == pb.DIRECTION_CLOCKWISE else COUNTERCLOCKWISE,
        draw_penalty=passed.draw_penalty,
        drawn=(),
        drawn_reason=pb.DRAW_REASON_UNSPECIFIED,
    )


def _round_won(state: PiratesState, won: pb.RoundWon) -> PiratesState:
    """The round's winner sails one space towards the island."""
    return replace(state, ships=tuple(won.ships))


def _game_won(state: PiratesState, won: pb.GameWon) -> PiratesState:
    """The first ship to reach the treasure island wins."""
    return replace(state, phase=pb.PHASE_FINISHED, ships=tuple(won.ships), winner=won.seat)


# Each kind of event's rule, above.
_EVOLVE: dict[str, Rule[PiratesState]] = {
    "game_started": _game_started,
    "round_dealt": _round_dealt,
    "card_played": _card_played,
    "cards_drawn": _cards_drawn,
    "draw_pile_rebuilt": _draw_pile_rebuilt,
    "turn_passed": _turn_passed,
    "round_won": _round_won,
    "game_won": _game_won,
    "game_stopped": limits.game_stopped,
}

# The state after an event: the rule of its kind (engines/evolving.py).
evolve = by_kind(pb.Event, _EVOLVE)


def _without(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """`hand` without one `card` (it may hold two alike)."""
    index = hand.index(card)
    return hand[:index] + hand[index + 1 :]


def _into(hand: tuple[Card, ...], cards: Sequence[Card]) -> tuple[Card, ...]:
    """The sorted `hand` with `cards`, each where it belongs (cheaper than a sort)."""
    merged = list(hand)
    for card in cards:
        insort(merged, card)
    return tuple(merged)


# --- questions ---------------------------------------------------------------------


def to_act(state: PiratesState) -> int | None:
    if state.phase in (pb.PHASE_UNSPECIFIED, pb.PHASE_FINISHED):
        return None
    return state.active_seat


def may_lay(state: PiratesState, seat: int) -> tuple[Card, ...]:
    """The cards of `seat`'s hand the phase lets it lay, whether they fit or not."""
    hand = state.hands[seat]
    if state.phase == pb.PHASE_BOTTLE:
        return tuple(card for card in hand if card.kind == pb.CARD_KIND_BOTTLE)
    if state.phase == pb.PHASE_DRAWN:
        after_bottle = state.drawn_reason == pb.DRAW_REASON_BOTTLE
        if after_bottle and _options(state).bottle_follow_up == pb.BOTTLE_FOLLOW_UP_HAND:
            return hand
        return state.drawn
    return hand


def layable(state: PiratesState, seat: int) -> list[Card]:
    """The distinct cards `seat` may lay now (sorted)."""
    if seat != to_act(state):
        return []
    top, announced = state.top, state.announced
    return sorted({card for card in may_lay(state, seat) if fits(card, top, announced)})


def legal_commands(state: PiratesState, seat: int) -> list[pb.Command]:
    if seat != to_act(state):
        return []
    cards = layable(state, seat)
    options = _options(state)
    left = len(state.hands[seat]) - 1
    calls = (False, True) if options.ohe_variant and left <= 1 else (False,)
    commands = []
    for card in cards:
        announces = COLOURS if card.is_parrot else (pb.COLOUR_UNSPECIFIED,)
        for announce in announces:
            for call in calls:
                play = pb.Play(card=card.to_proto(), announce=announce, call_ohe=call)
                commands.append(pb.Command(play=play))
    if not cards or must_lay(state) is None:
        if state.phase == pb.PHASE_DRAWN:
            commands.append(pb.Command(end_turn=pb.EndTurn()))
        else:
            commands.append(pb.Command(draw=pb.Draw()))
    return commands


def status(state: PiratesState) -> Status:
    if state.winner is None:
        return playing(to_act(state))
    winner = state.winner
    rounds = "round" if state.round == 1 else "rounds"
    return Status(
        finished=True,
        winners=(winner,),
        scores=state.ships,
        summary=f"{{{winner}}} reaches the treasure island first, after {state.round} {rounds}.",
    )
