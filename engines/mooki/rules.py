"""Mooki Island's rules as a decider: setup, decide, evolve, legal_commands, status.

Read beside seeds/mooki/RULES.md, which names the test of each rule."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines import limits
from engines.contract import InvalidSetup, RuleViolation, SeatInfo, Status, playing
from engines.evolving import Rule, by_kind
from engines.immutable import own_copy, put, replacer
from engines.mooki.cards import (
    CARDS,
    FAMILIES,
    FAMILY_NAMES,
    PILE_COUNT,
    SEAT_COUNT,
    STAR_TABLES,
    FamilyId,
    family_index,
)
from engines.mooki.data import DATA
from engines.mooki.scoring import cheapest_trophy, final_result, score, tally, trophies_won
from engines.mooki.state import PILE_CARDS, Drawn, MookiState, Placed, Result, Scoring
from engines.seating import youngest_by_age

# dataclasses.replace, without its per-call introspection (engines/immutable.py).
replace = replacer(MookiState)

# --- setup -----------------------------------------------------------------------


def resolve_options(options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
    if len(seats) != SEAT_COUNT:
        raise InvalidSetup(f"Mooki Island is for exactly 2 players, not {len(seats)}.")
    resolved = pb.Options()
    resolved.CopyFrom(options)
    if resolved.star_table == pb.STAR_TABLE_UNSPECIFIED:
        resolved.star_table = pb.STAR_TABLE_GUIDE
    if resolved.star_table not in STAR_TABLES:
        raise InvalidSetup(f"Unknown star_table {resolved.star_table}.")
    seen: set[int] = set()
    for custom in resolved.custom_stars:
        if custom.family not in FAMILIES:
            raise InvalidSetup("custom_stars: every entry needs a family.")
        if custom.family in seen:
            raise InvalidSetup(f"custom_stars: {FAMILY_NAMES[custom.family]} is given twice.")
        if not 1 <= custom.stars <= 9:
            raise InvalidSetup("custom_stars: a trophy has from 1 to 9 stars.")
        seen.add(custom.family)
    if resolved.HasField("youngest_seat"):  # named outright: wins over ages
        if resolved.youngest_seat >= SEAT_COUNT:
            raise InvalidSetup(f"youngest_seat must be 0 or 1, not {resolved.youngest_seat}.")
    else:
        youngest = youngest_by_age(seats)
        if youngest is not None:  # else left unset: nobody is known to be the youngest, seat 0 stands in
            resolved.youngest_seat = youngest
    return resolved


def star_values(options: pb.Options) -> tuple[int, ...]:
    stars = list(STAR_TABLES[options.star_table])
    for custom in options.custom_stars:
        stars[family_index(custom.family)] = custom.stars
    return tuple(stars)


def setup(options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
    """Shuffle the 36 cards, each landing on a random face, into two piles of 18."""
    order = list(range(len(CARDS)))
    rng.shuffle(order)
    dealt: list[pb.DealtCard] = []
    for card_id in order:
        first, second = CARDS[card_id]
        shown, hidden = (first, second) if rng.random() < 0.5 else (second, first)
        dealt.append(pb.DealtCard(card_id=card_id, shown=shown.to_proto(), hidden=hidden.to_proto()))
    half = (len(dealt) + 1) // 2
    piles = [dealt[:half], dealt[half:]]
    stars = star_values(options)
    started = pb.GameStarted(
        options=options,
        stars=[pb.TrophyStars(family=f, stars=s) for f, s in zip(FAMILIES, stars, strict=True)],
        youngest_seat=options.youngest_seat,
        first_seat=options.youngest_seat,
        piles=[pb.PileSetup(cards=pile, size=len(pile), top=pile[0].shown) for pile in piles],
        data_digest=DATA.digest,
    )
    return [pb.Event(game_started=started)]


# --- decide ------------------------------------------------------------------------


def decide(state: MookiState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
    action = command.WhichOneof("action")
    if state.phase == pb.PHASE_UNSPECIFIED:
        raise RuleViolation("not_started", "The game has not been dealt yet.")
    if state.phase == pb.PHASE_FINISHED:
        raise RuleViolation("game_over", "The game is over.")
    if state.phase == pb.PHASE_SCORING:
        raise RuleViolation("scoring", "The trophies are being handed out: nobody plays now.")
    if seat != to_act(state):
        raise RuleViolation("not_your_turn", f"It is seat {to_act(state)}'s turn, not seat {seat}'s.")
    if action == "draw":
        return _draw(state, seat, command.draw)
    if action == "place":
        return _place(state, seat, command.place)
    if action == "discard_trophy":
        return _discard(state, seat, command.discard_trophy)
    raise RuleViolation("unknown_command", "That is not a Mooki Island move.")


def _draw(state: MookiState, seat: int, draw: pb.Draw) -> list[pb.Event]:
    if state.phase != pb.PHASE_DRAW:
        raise RuleViolation("already_drawn", "You already drew a card: choose which face to play.")
    if draw.pile >= PILE_COUNT:
        raise RuleViolation("unknown_pile", f"There are two piles, 0 (left) and 1 (right), not {draw.pile}.")
    pile = state.piles[draw.pile]
    if not pile:
        raise RuleViolation("empty_pile", "That pile is empty: draw from the other one.")
    card = pile[0]
    event = pb.CardDrawn(
        seat=seat,
        pile=draw.pile,
        shown=card.shown.to_proto(),
        hidden=card.hidden.to_proto(),
        card_id=card.card_id,
    )
    if len(pile) > 1:
        event.revealed.CopyFrom(pile[1].shown.to_proto())
    return [pb.Event(card_drawn=event)]


def _place(state: MookiState, seat: int, place: pb.Place) -> list[pb.Event]:
    if state.phase != pb.PHASE_PLACE or state.drawn is None:
        raise RuleViolation("nothing_drawn", "Draw a card first.")
    card = state.drawn.card
    if place.side == pb.SIDE_SHOWN:
        face, other = card.shown, card.hidden
    elif place.side == pb.SIDE_HIDDEN:
        face, other = card.hidden, card.shown
    else:
        raise RuleViolation("unknown_side", "Choose SIDE_SHOWN or SIDE_HIDDEN.")
    # A Mooki joins your own collection; a Spider goes onto your opponent's.
    target = _opponent(seat) if face.is_spider else seat
    placed = pb.CardPlaced(
        seat=seat,
        side=place.side,
        face=face.to_proto(),
        collection_seat=target,
        other_face=other.to_proto(),
        card_id=card.card_id,
    )
    events = [pb.Event(card_placed=placed)]
    if any(not pile for pile in state.piles):  # the last card of a pile was drawn
        collections = [list(c) for c in state.collections]
        collections[target].append(Placed(card.card_id, face, other, seat, place.side))
        events.extend(_end_of_game(state, collections))
    return events


def _end_of_game(state: MookiState, collections: Sequence[Sequence[Placed]]) -> list[pb.Event]:
    counts, spiders = tally(collections)
    scoring = score(counts, spiders)
    events = [pb.Event(trophies_awarded=scoring_to_proto(scoring))]
    trophies = [trophies_won(scoring, seat) for seat in range(SEAT_COUNT)]
    penalised = scoring.penalised_seat
    if penalised is not None:
        if must_choose(trophies[penalised]):
            return events  # the penalised player chooses (PHASE_DISCARD_TROPHY)
        # A single trophy leaves no choice: it goes back at once.
        lost = trophies[penalised][0]
        events.append(pb.Event(trophy_discarded=pb.TrophyDiscarded(seat=penalised, family=lost, auto=True)))
        trophies[penalised] = ()
    events.append(_finish(state, trophies))
    return events


def _discard(state: MookiState, seat: int, discard: pb.DiscardTrophy) -> list[pb.Event]:
    if state.phase != pb.PHASE_DISCARD_TROPHY:
        raise RuleViolation("wrong_phase", "No trophy has to be given back now.")
    held = state.trophies[seat]
    if discard.auto:
        family = cheapest_trophy(held, state.stars)
    elif discard.family in held:
        family = discard.family
    else:
        raise RuleViolation("not_your_trophy", "Give back one of the trophies you won.")
    trophies = [t if s != seat else tuple(f for f in t if f != family) for s, t in enumerate(state.trophies)]
    return [
        pb.Event(trophy_discarded=pb.TrophyDiscarded(seat=seat, family=family, auto=discard.auto)),
        _finish(state, trophies),
    ]


def must_choose(trophies: Sequence[FamilyId]) -> bool:
    """Whether the penalised player has a trophy to choose: with one, it goes back by
    itself (with none, the Spiders cost nothing)."""
    return len(trophies) > 1


def _finish(state: MookiState, trophies: Sequence[Sequence[FamilyId]]) -> pb.Event:
    result = final_result(trophies, state.stars, state.youngest_seat)
    finished = pb.GameFinished(stars=result.stars, winner=result.winner, won_by_age=result.won_by_age)
    # Nobody is known to be the youngest: the first player stood in (decision 3).
    finished.youngest_unknown = result.won_by_age and not _youngest_known(state)
    return pb.Event(game_finished=finished)


def _youngest_known(state: MookiState) -> bool:
    return state.options is not None and state.options.HasField("youngest_seat")


def _opponent(seat: int) -> int:
    return 1 - seat


def scoring_to_proto(scoring: Scoring) -> pb.TrophiesAwarded:
    message = pb.TrophiesAwarded(spiders=scoring.spiders)
    for family, counts, winner in zip(FAMILIES, scoring.counts, scoring.winners, strict=True):
        tally_message = message.families.add(family=family, counts=counts)
        if winner is not None:
            tally_message.winner = winner
    if scoring.penalised_seat is not None:
        message.penalised_seat = scoring.penalised_seat
    return message


# --- evolve ------------------------------------------------------------------------


def _game_started(state: MookiState, started: pb.GameStarted) -> MookiState:
    """The two piles are dealt; the youngest player begins."""
    DATA.require(started.data_digest)
    piles = tuple(PILE_CARDS.of_field(pile, "cards") for pile in started.piles)
    return MookiState(
        phase=pb.PHASE_DRAW,
        stars=tuple(trophy.stars for trophy in started.stars),
        youngest_seat=started.youngest_seat,
        active_seat=started.first_seat,
        piles=piles,
        dealt=piles,
        options=own_copy(started.options),
    )


def _card_drawn(state: MookiState, drawn: pb.CardDrawn) -> MookiState:
    """The player takes the top card of a pile in hand, to choose which face to play."""
    pile = state.piles[drawn.pile]
    return replace(
        state,
        phase=pb.PHASE_PLACE,
        piles=put(state.piles, drawn.pile, pile[1:]),
        drawn=Drawn(drawn.seat, drawn.pile, pile[0]),
    )


def _card_placed(state: MookiState, placed: pb.CardPlaced) -> MookiState:
    """The card goes on top of a collection, the chosen face up; the opponent's turn."""
    assert state.drawn is not None
    card = state.drawn.card
    face, other = (card.shown, card.hidden) if placed.side == pb.SIDE_SHOWN else (card.hidden, card.shown)
    target = placed.collection_seat
    collection = (*state.collections[target], Placed(card.card_id, face, other, placed.seat, placed.side))
    return replace(
        state,
        phase=pb.PHASE_DRAW,
        active_seat=_opponent(placed.seat),
        collections=put(state.collections, target, collection),
        drawn=None,
    )


def _trophies_awarded(state: MookiState, awarded: pb.TrophiesAwarded) -> MookiState:
    """Each family's trophy goes to the most Mookies; the most Spiders may cost one."""
    scoring = _scoring_from_proto(awarded)
    trophies = tuple(trophies_won(scoring, seat) for seat in range(SEAT_COUNT))
    penalised = scoring.penalised_seat
    if penalised is not None and must_choose(trophies[penalised]):
        return replace(state, phase=pb.PHASE_DISCARD_TROPHY, active_seat=penalised, scoring=scoring, trophies=trophies)
    # Nothing to choose: the move's next events give back the only trophy (if any)
    # and end the game. Nobody acts in between.
    return replace(state, phase=pb.PHASE_SCORING, scoring=scoring, trophies=trophies)


def _trophy_discarded(state: MookiState, lost: pb.TrophyDiscarded) -> MookiState:
    """The penalised player gives a trophy back; the game ends with the move's next
    event: nobody acts in between."""
    trophies = put(state.trophies, lost.seat, tuple(f for f in state.trophies[lost.seat] if f != lost.family))
    return replace(state, phase=pb.PHASE_SCORING, trophies=trophies, discarded=(lost.seat, lost.family, lost.auto))


def _game_finished(state: MookiState, finished: pb.GameFinished) -> MookiState:
    """The most stars win; on a tie, the youngest player."""
    result = Result(tuple(finished.stars), finished.winner, finished.won_by_age, finished.youngest_unknown)
    return replace(state, phase=pb.PHASE_FINISHED, result=result)


# Each kind of event's rule, above.
_EVOLVE: dict[str, Rule[MookiState]] = {
    "game_started": _game_started,
    "card_drawn": _card_drawn,
    "card_placed": _card_placed,
    "trophies_awarded": _trophies_awarded,
    "trophy_discarded": _trophy_discarded,
    "game_finished": _game_finished,
    "game_stopped": limits.game_stopped,
}

# The state after an event: the rule of its kind (engines/evolving.py).
evolve = by_kind(pb.Event, _EVOLVE)


def _scoring_from_proto(message: pb.TrophiesAwarded) -> Scoring:
    return Scoring(
        counts=tuple(tuple(family.counts) for family in message.families),
        winners=tuple(family.winner if family.HasField("winner") else None for family in message.families),
        spiders=tuple(message.spiders),
        penalised_seat=message.penalised_seat if message.HasField("penalised_seat") else None,
    )


# --- questions ---------------------------------------------------------------------


def to_act(state: MookiState) -> int | None:
    if state.phase in (pb.PHASE_UNSPECIFIED, pb.PHASE_FINISHED, pb.PHASE_SCORING):
        return None
    return state.active_seat


def legal_commands(state: MookiState, seat: int) -> list[pb.Command]:
    if seat != to_act(state):
        return []
    if state.phase == pb.PHASE_DRAW:
        return [pb.Command(draw=pb.Draw(pile=p)) for p, pile in enumerate(state.piles) if pile]
    if state.phase == pb.PHASE_PLACE:
        return [pb.Command(place=pb.Place(side=side)) for side in (pb.SIDE_SHOWN, pb.SIDE_HIDDEN)]
    if state.phase == pb.PHASE_DISCARD_TROPHY:
        choices = [pb.Command(discard_trophy=pb.DiscardTrophy(family=f)) for f in state.trophies[seat]]
        return [*choices, pb.Command(discard_trophy=pb.DiscardTrophy(auto=True))]
    return []


def status(state: MookiState) -> Status:
    if state.result is None:
        return playing(to_act(state))
    result = state.result
    loser = _opponent(result.winner)
    tie = " (a tie in stars: the youngest player wins)" if result.won_by_age else ""
    return Status(
        finished=True,
        winners=(result.winner,),
        scores=result.stars,
        summary=(f"{{{result.winner}}} wins with {result.stars[result.winner]} stars to {result.stars[loser]}{tie}."),
    )
