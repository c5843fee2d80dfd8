"""Pirates & Compagnie for people: every event and legal command as a phrase (a
message key of seeds/pirates/locales/ and its arguments), and the steps that pick a move
("the card, then the colour a Parrot asks for, then the call"). Events are described
from what the viewer may see of them (the redacted event: a hidden hand's cards are
not there), commands from the view of the seat that may play them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from google.protobuf.json_format import ParseDict
from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines import limits
from engines.data import load_json
from engines.describing import Describer
from engines.phrases import (
    Arg,
    Described,
    ListArg,
    Memo,
    NumberArg,
    Phrase,
    SeatArg,
    Step,
    StepRole,
    action_step,
    phrase,
    ties,
)
from engines.pirates import material
from engines.pirates.cards import COLOUR_NAMES, KIND_NAMES, ColourId, KindId

# Every code rules.py may refuse a command with (tests/engines/test_descriptions.py
# checks the rules' source against it; each has a key "pirates.rule.<code>").
RULE_CODES = (
    "not_started",
    "game_over",
    "not_your_turn",
    "unknown_command",
    "not_in_hand",
    "answer_the_bottle",
    "only_drawn_cards",
    "announce_a_colour",
    "nothing_to_announce",
    "ohe_not_played",
    "nothing_to_call",
    "parrot_on_parrot",
    "follow_the_parrot",
    "does_not_fit",
    "already_drawn",
    "must_play",
    "nothing_drawn",
    "must_lay_after_bottle",
    "must_answer_bottle",
    "nothing_to_draw",
)

_COLOURS = {c: Phrase(f"pirates.colour.{name}", value=pb.Colour.Name(c)) for c, name in COLOUR_NAMES.items()}
_CALL_OHE = Phrase("pirates.call.ohe", value="ohe")
_CALL_OHE_OHE = Phrase("pirates.call.ohe_ohe", value="ohe_ohe")
_NO_CALL = Phrase("pirates.call.none", value="none")
_CARDS: dict[tuple[int, int, int], Phrase] = {}


def colour(value: ColourId) -> Phrase:
    return _COLOURS.get(value) or Phrase("pirates.colour.unknown", value=pb.Colour.Name(value))


def card(message: pb.Card) -> Phrase:
    """The card's phrase; its value names it: "CARD_KIND_PIRATE/COLOUR_STAR/7",
    "CARD_KIND_BOTTLE/COLOUR_FLOWER", "CARD_KIND_PARROT"."""
    key = (message.kind, message.colour, message.value)
    known = _CARDS.get(key)
    if known is None:
        known = _card_phrase(*key)
        if message.kind in KIND_NAMES and len(_CARDS) < 64:  # the deck's faces, and no more
            _CARDS[key] = known
    return known


def _card_phrase(kind: KindId, colour_id: ColourId, value: int) -> Phrase:
    if kind == pb.CARD_KIND_PARROT:
        return Phrase("pirates.card.parrot", value="CARD_KIND_PARROT")
    if kind not in KIND_NAMES:
        return Phrase("pirates.card.unknown", value="CARD_KIND_UNSPECIFIED")
    name = f"{pb.CardKind.Name(kind)}/{pb.Colour.Name(colour_id)}"
    if kind == pb.CARD_KIND_PIRATE:
        return phrase("pirates.card.pirate", f"{name}/{value}", colour=colour(colour_id), number=NumberArg(value))
    return phrase(f"pirates.card.{KIND_NAMES[kind]}", name, colour=colour(colour_id))


def cards(messages: Sequence[pb.Card]) -> ListArg:
    return ListArg(tuple(card(c) for c in messages))


# --- events ---------------------------------------------------------------------------


def _game_started(event: pb.Event) -> Phrase:
    started = event.game_started
    distance = NumberArg(started.options.island_distance)  # "count": 1 space, 5 spaces
    if started.removed:
        return phrase("pirates.event.game_started_removed", count=distance, cards=cards(started.removed))
    return phrase("pirates.event.game_started", count=distance)


def _round_dealt(event: pb.Event) -> Phrase:
    dealt = event.round_dealt
    args: dict[str, Arg] = {
        "round": NumberArg(dealt.round),
        "card": card(dealt.discard),
        "seat": SeatArg(dealt.first_seat),
    }
    if dealt.turned_under:
        return phrase("pirates.event.round_dealt_turned", cards=cards(dealt.turned_under), **args)
    return phrase("pirates.event.round_dealt", **args)


def _card_played(event: pb.Event) -> Phrase:
    played = event.card_played
    seat = SeatArg(played.seat)
    if played.called_ohe:
        call = _CALL_OHE_OHE if played.hand_size == 0 else _CALL_OHE
        if played.card.kind == pb.CARD_KIND_PARROT:
            return phrase("pirates.event.parrot_played_ohe", seat=seat, colour=colour(played.announced), call=call)
        return phrase("pirates.event.card_played_ohe", seat=seat, card=card(played.card), call=call)
    if played.card.kind == pb.CARD_KIND_PARROT:
        return phrase("pirates.event.parrot_played", seat=seat, colour=colour(played.announced))
    if played.card.kind == pb.CARD_KIND_SAILBOAT:
        return phrase("pirates.event.sailboat_played", seat=seat, card=card(played.card))
    return phrase("pirates.event.card_played", seat=seat, card=card(played.card))


_DRAW_KEYS = {
    pb.DRAW_REASON_BOTTLE: "pirates.event.bottle_penalty_drawn",
    pb.DRAW_REASON_OHE: "pirates.event.ohe_penalty_drawn",
}


def _cards_drawn(event: pb.Event) -> Phrase:
    drawn = event.cards_drawn
    seat = SeatArg(drawn.seat)
    if drawn.count == 0:
        return phrase("pirates.event.nothing_to_draw", seat=seat)
    key = _DRAW_KEYS.get(drawn.reason, "pirates.event.cards_drawn")
    if drawn.cards:  # the drawer's own cards, or open hands: the viewer may see them
        return phrase(f"{key}_seen", seat=seat, cards=cards(drawn.cards), count=NumberArg(drawn.count))
    return phrase(key, seat=seat, count=NumberArg(drawn.count))


def _draw_pile_rebuilt(event: pb.Event) -> Phrase:
    return phrase("pirates.event.draw_pile_rebuilt", count=NumberArg(event.draw_pile_rebuilt.size))


def _turn_passed(event: pb.Event) -> Phrase:
    passed = event.turn_passed
    following = SeatArg(passed.next_seat)
    if passed.HasField("skipped_seat"):
        return phrase("pirates.event.turn_skipped", skipped=SeatArg(passed.skipped_seat), seat=following)
    if passed.draw_penalty:
        return phrase("pirates.event.turn_passed_penalty", seat=following, count=NumberArg(passed.draw_penalty))
    return phrase("pirates.event.turn_passed", seat=following)


def _round_won(event: pb.Event) -> Phrase:
    won = event.round_won
    space = won.ships[won.seat] if won.seat < len(won.ships) else 0
    key = (
        "pirates.event.round_won_pile_exhausted"
        if won.end == pb.ROUND_END_PILE_EXHAUSTED
        else "pirates.event.round_won"
    )
    return phrase(key, seat=SeatArg(won.seat), round=NumberArg(won.round), space=NumberArg(space))


def _game_won(event: pb.Event) -> Phrase:
    won = event.game_won
    return phrase("pirates.event.game_won", seat=SeatArg(won.seat), count=NumberArg(won.rounds))


def _game_stopped(event: pb.Event) -> Phrase:
    return limits.stopped_phrase("pirates", event.game_stopped.event_limit)


_EVENTS: dict[str, Callable[[pb.Event], Phrase]] = {
    "game_started": _game_started,
    "round_dealt": _round_dealt,
    "card_played": _card_played,
    "cards_drawn": _cards_drawn,
    "draw_pile_rebuilt": _draw_pile_rebuilt,
    "turn_passed": _turn_passed,
    "round_won": _round_won,
    "game_won": _game_won,
    "game_stopped": _game_stopped,
}


def describe_outcome(view: pb.View) -> Phrase:
    """How the game ended: the words of its last event (GameWon, or GameStopped)."""
    if view.HasField("stopped"):
        return limits.stopped_phrase("pirates", view.stopped.event_limit)
    return _game_won(pb.Event(game_won=pb.GameWon(seat=view.winner, rounds=view.round)))


def describe_event(event: pb.Event) -> Phrase:
    return _EVENTS[event.WhichOneof("kind") or ""](event)


# --- commands ---------------------------------------------------------------------------

_MOVES = Memo[Hashable, Described]()


def _play(command: pb.Command, view: pb.View, tied: bool) -> Described:
    play = command.play
    parrot = play.card.kind == pb.CARD_KIND_PARROT
    last = (
        view.HasField("active_seat") and view.active_seat < len(view.hands) and view.hands[view.active_seat].size == 1
    )
    laid = card(play.card)

    def make() -> Described:
        steps = [Step(StepRole.PIECE, "card", laid.value, laid)]
        if parrot:
            steps.append(Step(StepRole.OPTION, "colour", pb.Colour.Name(play.announce), colour(play.announce)))
        args: dict[str, Arg] = {"colour": colour(play.announce)} if parrot else {"card": laid}
        if play.call_ohe:
            call = _CALL_OHE_OHE if last else _CALL_OHE
            key = "pirates.command.play_parrot_ohe" if parrot else "pirates.command.play_ohe"
            label = phrase(key, call=call, **args)
        else:
            call = _NO_CALL
            label = phrase("pirates.command.play_parrot" if parrot else "pirates.command.play", **args)
        if tied:  # the "ohé!" variant offers the move with and without the call
            steps.append(Step(StepRole.OPTION, "call", call.value, call))
        return Described(label, tuple(steps))

    return _MOVES.get((laid, play.announce, play.call_ohe, last, tied), make)


def _draw(command: pb.Command, view: pb.View, tied: bool) -> Described:
    if view.phase == pb.PHASE_BOTTLE:
        label = phrase("pirates.command.draw_penalty", count=NumberArg(view.draw_penalty))
    else:
        label = phrase("pirates.command.draw")
    return Described(label, (action_step("draw", label),))


def _end_turn(command: pb.Command, view: pb.View, tied: bool) -> Described:
    label = phrase("pirates.command.end_turn")
    return Described(label, (action_step("endTurn", label),))


_COMMANDS: dict[str, Callable[[pb.Command, pb.View, bool], Described]] = {
    "play": _play,
    "draw": _draw,
    "end_turn": _end_turn,
}


def describe_commands(commands: Sequence[pb.Command], view: pb.View) -> list[Described]:
    actions = [command.WhichOneof("action") or "" for command in commands]
    # Two plays of one card with one colour differ only by the call: then it is a step.
    keys = [
        (c.play.card.kind, c.play.card.colour, c.play.card.value, c.play.announce) if a == "play" else a
        for c, a in zip(commands, actions, strict=True)
    ]
    tied = ties(keys)
    return [_COMMANDS[a](c, view, t) for c, a, t in zip(commands, actions, tied, strict=True)]


def presets() -> list[tuple[str, pb.Options]]:
    """The named option sets of seeds/pirates/presets.json."""
    raw = load_json("pirates", "presets.json")["presets"]
    return [(p["name"], ParseDict(p["options"], pb.Options())) for p in raw]


DESCRIBER = Describer(
    kind="pirates",
    describe_event=describe_event,
    describe_outcome=describe_outcome,
    describe_commands=describe_commands,
    event_kinds=frozenset(_EVENTS),
    command_kinds=frozenset(_COMMANDS),
    rule_codes=RULE_CODES,
    material=material.material,
    presets=presets,
)
