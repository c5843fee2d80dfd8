"""Mooki Island's rules as a decider: setup, decide, evolve, legal_commands, status.

Read beside seeds/mooki/RULES.md, which names the test of each rule."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from ludotheque.mooki.v1 import mooki_pb2 as pb

from engines.contract import InvalidSetup, RuleViolation, SeatInfo, Status, playing
from engines.encoded import Shared, parts
from engines.immutable import own_copy, replacer
from engines.mooki.cards import (
    CARDS,
    FAMILIES,
    FAMILY_NAMES,
    PILE_COUNT,
    SEAT_COUNT,
    STAR_TABLES,
    Face,
    FamilyId,
    family_index,
)
from engines.mooki.data import DATA
from engines.mooki.scoring import cheapest_trophy, final_result, score, tally, trophies_won
from engines.mooki.state import Drawn, MookiState, PileCard, Placed, Result, Scoring
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
        resolved.youngest_seat = 0 if youngest is None else youngest
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
    return pb.Event(
        game_finished=pb.GameFinished(stars=result.stars, winner=result.winner, won_by_age=result.won_by_age)
    )


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


# The initial state, whose fields a game_started event starts from (states are immutable).
_FRESH = MookiState()


def evolve(state: MookiState, event: pb.Event) -> MookiState:
    return evolve_all(state, (event,))[0]


def evolve_all(state: MookiState, events: Iterable[pb.Event]) -> tuple[MookiState, int | None]:
    """The state after `events`, in order, up to a game_stopped event, and that
    event's limit (None: none met; engines/limits.py stops the state): what evolving
    one event at a time gives, without making the states in between (a replay folds a
    whole game). The state's fields are local variables here, and the card in hand a
    plain tuple until the end (most are placed at once). A pile is not copied for each
    card drawn from it: how many were drawn is counted, and the pile cut once at the
    end; a collection that grows is a list until the end. The loop reads the enums it
    compares from locals, and makes a Placed with tuple.__new__ (what its class's
    __new__ does, without the call): each costs a replay per event."""
    phase, stars, youngest_seat, active_seat, piles, collections = (
        state.phase,
        state.stars,
        state.youngest_seat,
        state.active_seat,
        state.piles,
        state.collections,
    )
    scoring, trophies, discarded, result, options = (
        state.scoring,
        state.trophies,
        state.discarded,
        state.result,
        state.options,
    )
    drawn = state.drawn
    holding: tuple[int, int, PileCard] | None = None if drawn is None else (drawn.seat, drawn.pile, drawn.card)
    # Cards drawn from each pile since the last cut (piles[i][taken_from[i]] is its top),
    # and each collection as a list once a card is placed in it.
    taken_from = [0] * len(piles)
    growing: list[tuple[Placed, ...] | list[Placed]] = list(collections)
    stopped_at = None
    phase_place, phase_draw, side_shown, new_tuple = pb.PHASE_PLACE, pb.PHASE_DRAW, pb.SIDE_SHOWN, tuple.__new__
    which = pb.Event.WhichOneof  # from the class: asking each event for the method costs a lookup
    for event in events:
        kind = which(event, "kind")
        if kind == "card_drawn":
            taken = event.card_drawn
            index = taken.pile
            top = taken_from[index]
            holding = (taken.seat, index, piles[index][top])
            taken_from[index] = top + 1
            phase = phase_place
        elif kind == "card_placed":
            placed = event.card_placed
            assert holding is not None
            card, side, seat, target = holding[2], placed.side, placed.seat, placed.collection_seat
            if side == side_shown:
                kept = new_tuple(Placed, (card.card_id, card.shown, card.hidden, seat, side))
            else:
                kept = new_tuple(Placed, (card.card_id, card.hidden, card.shown, seat, side))
            collection = growing[target]
            if not isinstance(collection, list):
                collection = growing[target] = list(collection)
            collection.append(kept)
            holding, phase, active_seat = None, phase_draw, 1 - seat  # the opponent's turn
        elif kind == "game_started":
            started = event.game_started
            DATA.require(started.data_digest)
            fresh = _FRESH
            phase, stars, youngest_seat, active_seat = (
                pb.PHASE_DRAW,
                tuple([s.stars for s in started.stars[:]]),
                started.youngest_seat,
                started.first_seat,
            )
            piles = tuple([PILE_CARDS.of_encodings(parts(pile).field_1) for pile in started.piles])  # PileSetup.cards
            taken_from = [0] * len(piles)
            growing = list(fresh.collections)
            holding, scoring, trophies = None, None, fresh.trophies
            discarded, result, options = None, None, own_copy(started.options)
        elif kind == "trophies_awarded":
            scoring = _scoring_from_proto(event.trophies_awarded)
            trophies = tuple([trophies_won(scoring, seat) for seat in range(SEAT_COUNT)])
            penalised = scoring.penalised_seat
            if penalised is not None and must_choose(trophies[penalised]):
                phase, active_seat = pb.PHASE_DISCARD_TROPHY, penalised
            else:
                # Nothing to choose: the move's next events give back the only trophy
                # (if any) and end the game. Nobody acts in between.
                phase = pb.PHASE_SCORING
        elif kind == "trophy_discarded":
            lost = event.trophy_discarded
            trophies = tuple(
                [
                    tuple([f for f in held if not (s == lost.seat and f == lost.family)])
                    for s, held in enumerate(trophies)
                ]
            )
            # The game ends with the move's next event: nobody acts in between.
            discarded, phase = (lost.seat, lost.family, lost.auto), pb.PHASE_SCORING
        elif kind == "game_finished":
            finished = event.game_finished
            result, phase = Result(tuple(finished.stars[:]), finished.winner, finished.won_by_age), pb.PHASE_FINISHED
        elif kind == "game_stopped":
            stopped_at = event.game_stopped.event_limit
            break
        # any other kind is one this rules version does not know: it changes nothing
    if any(taken_from):
        piles = tuple([pile[top:] if top else pile for pile, top in zip(piles, taken_from, strict=True)])
    collections = tuple([tuple(collection) if isinstance(collection, list) else collection for collection in growing])
    state = MookiState(
        phase,
        stars,
        youngest_seat,
        active_seat,
        piles,
        collections,
        None if holding is None else Drawn(*holding),
        scoring,
        trophies,
        discarded,
        result,
        options,
    )
    return state, stopped_at


# One shared instance per card and side up (72 in all): every live game holds 36. Found
# by the card's encoding (engines/encoded.py).
PILE_CARDS: Shared[pb.DealtCard, PileCard] = Shared(
    pb.DealtCard, lambda dealt: PileCard(dealt.card_id, Face.from_proto(dealt.shown), Face.from_proto(dealt.hidden))
)


_has_winner = pb.FamilyTally.HasField  # from the class: asking each tally for the method costs a lookup


def _scoring_from_proto(message: pb.TrophiesAwarded) -> Scoring:
    # Repeated fields read as slices: one call into upb each, not one per element.
    families = message.families[:]
    return Scoring(
        counts=tuple([tuple(tally_message.counts[:]) for tally_message in families]),
        winners=tuple([t.winner if _has_winner(t, "winner") else None for t in families]),
        spiders=tuple(message.spiders[:]),
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
