"""Facteur Souris's picnic for people: every event and legal command as a phrase (a
message key of seeds/picnic/locales/ and its arguments), and the steps that pick a move
("the friend, then the space", "the tile, then where Facteur Souris walks"). Events
are described from what the viewer may see of them (the redacted event), commands
from the view of the seat that may play them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from google.protobuf.json_format import ParseDict
from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines import limits
from engines.data import load_json
from engines.describing import Describer
from engines.phrases import (
    Described,
    ListArg,
    Memo,
    NumberArg,
    Phrase,
    SeatArg,
    Step,
    StepRole,
    TextArg,
    action_step,
    phrase,
    ties,
)
from engines.picnic import material
from engines.picnic.board import BOARD_NAMES, BOARDS, FRIEND_NAMES, WIDTH, Board, cell_name
from engines.picnic.material import slug
from engines.picnic.tiles import TileKindId

# Every code rules.py may refuse a command with (tests/engines/test_descriptions.py
# checks the rules' source against it; each has a key "picnic.rule.<code>").
RULE_CODES = (
    "not_started",
    "game_over",
    "not_your_turn",
    "unknown_command",
    "wrong_phase",
    "unknown_place",
    "empty_place",
    "draw_first",
    "kept_tile_not_now",
    "no_kept_tile",
    "unknown_source",
    "bad_route",
    "nothing_to_keep",
    "already_holding",
    "nothing_to_discard",
    "unknown_friend",
    "friend_at_picnic",
    "bad_tent_site",
    "bad_dragon_move",
    "unknown_shelter",
)

_TILE_NAMES = {
    pb.TILE_KIND_FACTEUR: "facteur",
    pb.TILE_KIND_FRIEND: "friend",
    pb.TILE_KIND_RAIN: "rain",
    pb.TILE_KIND_TENT: "tent",
    pb.TILE_KIND_NIGHT: "night",
    pb.TILE_KIND_DRAGON: "dragon",
}
_WITH_VALUE = (pb.TILE_KIND_FACTEUR, pb.TILE_KIND_FRIEND, pb.TILE_KIND_DRAGON)
_TILES: dict[tuple[int, int], Phrase] = {}
_SHELTERS = {pb.SHELTER_TENT: "picnic.event.rain_fell_tent", pb.SHELTER_HOUSE: "picnic.event.rain_fell"}
# Where the Rain tile went: back to its place (told), back to a place for the players to
# remember (place_hidden, engines/picnic/memory.py), or out of the game (left_game).
_LOSSES = {pb.LOSS_REASON_DRAGON: "picnic.event.game_lost_dragon", pb.LOSS_REASON_NIGHT: "picnic.event.game_lost_night"}


_FRIENDS = tuple(Phrase(f"picnic.friend.{slug(name)}", value=str(i)) for i, name in enumerate(FRIEND_NAMES))
_CELL_NAMES: dict[int, str] = {}


def friend(index: int) -> Phrase:
    return _FRIENDS[index] if index < len(_FRIENDS) else Phrase("picnic.friend.unknown", value=str(index))


def tile(message: pb.Tile) -> Phrase:
    """The tile's face; its value names it: "TILE_KIND_FACTEUR/2", "TILE_KIND_RAIN"."""
    key = (message.kind, message.value)
    known = _TILES.get(key)
    if known is None:
        known = _tile_phrase(*key)
        if message.kind in _TILE_NAMES and len(_TILES) < 64:
            _TILES[key] = known
    return known


def _tile_phrase(kind: TileKindId, value: int) -> Phrase:
    if kind not in _TILE_NAMES:
        return Phrase("picnic.tile.unknown", value="TILE_KIND_UNSPECIFIED")
    name = pb.TileKind.Name(kind)
    if kind in _WITH_VALUE:
        return phrase(f"picnic.tile.{_TILE_NAMES[kind]}", f"{name}/{value}", number=NumberArg(value))
    return Phrase(f"picnic.tile.{_TILE_NAMES[kind]}", value=name)


def _name(cell: int) -> str:
    name = _CELL_NAMES.get(cell)
    if name is None:
        name = _CELL_NAMES[cell] = cell_name(WIDTH, cell)
    return name


def lid_place(index: int) -> TextArg:
    """A place of the lid: its number for programs (as Draw.place, from 0), and for
    people counted from 1, as a page shows the lid ("place 1" is the first)."""
    return TextArg(str(index), str(index + 1))


def cell(index: int) -> TextArg:
    """A space: its id, shown by its name ("C4")."""
    return TextArg(str(index), _name(index))


def route(start: int | None, steps: Sequence[int]) -> TextArg:
    """A walk: its value is the spaces stepped on ("12,13,22", as a command's route);
    its text starts from where the piece stood ("C2 > D2 > E3")."""
    names = [_name(c) for c in steps]
    if start is not None:
        names.insert(0, _name(start))
    return TextArg(",".join(str(c) for c in steps), " > ".join(names))


# --- events ---------------------------------------------------------------------------


def _game_started(event: pb.Event) -> Phrase:
    started = event.game_started
    board = BOARD_NAMES.get(started.options.board, "easy")
    return phrase(
        "picnic.event.game_started",
        count=NumberArg(len(started.lid)),
        board=Phrase(f"picnic.board.{board}", value=pb.Board.Name(started.options.board)),
        seat=SeatArg(started.first_seat),
    )


def _tile_drawn(event: pb.Event) -> Phrase:
    drawn = event.tile_drawn
    if drawn.place_hidden:  # read again while it lies face down there: its place is for memory
        return phrase("picnic.event.tile_drawn_somewhere", seat=SeatArg(drawn.seat), tile=tile(drawn.tile))
    return phrase(
        "picnic.event.tile_drawn", seat=SeatArg(drawn.seat), place=lid_place(drawn.place), tile=tile(drawn.tile)
    )


def _tile_kept(event: pb.Event) -> Phrase:
    kept = event.tile_kept
    return phrase("picnic.event.tile_kept", seat=SeatArg(kept.seat), tile=tile(kept.tile))


def _tile_discarded(event: pb.Event) -> Phrase:
    gone = event.tile_discarded
    if gone.tile.kind == pb.TILE_KIND_FRIEND:
        return phrase("picnic.event.friend_tile_discarded", tile=tile(gone.tile))
    return phrase("picnic.event.tile_discarded", seat=SeatArg(gone.seat), tile=tile(gone.tile))


def _facteur_moved(event: pb.Event) -> Phrase:
    """Who walked him, with which tile: the one drawn, or the one kept."""
    moved = event.facteur_moved
    key = "picnic.event.facteur_moved_kept" if moved.source == pb.TILE_SOURCE_KEPT else "picnic.event.facteur_moved"
    return phrase(key, seat=SeatArg(moved.seat), route=route(moved.start, moved.route), tile=tile(moved.tile))


def _friend_moved(event: pb.Event) -> Phrase:
    walked = event.friend_moved
    return phrase(
        "picnic.event.friend_moved",
        seat=SeatArg(walked.seat),
        friend=friend(walked.friend),
        route=route(walked.start, walked.route),
        tile=tile(walked.tile),
    )


def _friend_invited(event: pb.Event) -> Phrase:
    invited = event.friend_invited
    return phrase("picnic.event.friend_invited", friend=friend(invited.friend), count=NumberArg(invited.invited_count))


def _rain_fell(event: pb.Event) -> Phrase:
    rain = event.rain_fell
    key = _SHELTERS.get(rain.shelter, "picnic.event.rain_fell")
    if rain.left_game:
        return phrase(f"{key}_gone", cell=cell(rain.cell))
    if rain.place_hidden:
        return phrase(f"{key}_hidden", cell=cell(rain.cell))
    return phrase(key, place=lid_place(rain.place), cell=cell(rain.cell))


def _tent_built(event: pb.Event) -> Phrase:
    return phrase("picnic.event.tent_built", cell=cell(event.tent_built.cell))


def _night_fell(event: pb.Event) -> Phrase:
    return phrase("picnic.event.night_fell", space=NumberArg(event.night_fell.space))


def _dragon_moved(event: pb.Event) -> Phrase:
    dragon = event.dragon_moved
    if dragon.stuck:
        return phrase("picnic.event.dragon_stuck")
    return phrase("picnic.event.dragon_moved", start=cell(dragon.start), to=cell(dragon.to))


def _turn_passed(event: pb.Event) -> Phrase:
    return phrase("picnic.event.turn_passed", seat=SeatArg(event.turn_passed.seat))


def _game_won(event: pb.Event) -> Phrase:
    return phrase("picnic.event.game_won", count=NumberArg(event.game_won.invited_count))


def _game_lost(event: pb.Event) -> Phrase:
    lost = event.game_lost
    return phrase(_LOSSES.get(lost.reason, "picnic.event.game_lost_night"), count=NumberArg(lost.invited_count))


def _game_stopped(event: pb.Event) -> Phrase:
    return limits.stopped_phrase("picnic", event.game_stopped.event_limit)


_EVENTS: dict[str, Callable[[pb.Event], Phrase]] = {
    "game_started": _game_started,
    "tile_drawn": _tile_drawn,
    "tile_kept": _tile_kept,
    "tile_discarded": _tile_discarded,
    "facteur_moved": _facteur_moved,
    "friend_moved": _friend_moved,
    "friend_invited": _friend_invited,
    "rain_fell": _rain_fell,
    "tent_built": _tent_built,
    "night_fell": _night_fell,
    "dragon_moved": _dragon_moved,
    "turn_passed": _turn_passed,
    "game_won": _game_won,
    "game_lost": _game_lost,
    "game_stopped": _game_stopped,
}


def describe_outcome(view: pb.View) -> Phrase:
    """How the game ended: the words of its last event (GameWon, GameLost, or GameStopped)."""
    if view.HasField("stopped"):
        return limits.stopped_phrase("picnic", view.stopped.event_limit)
    invited = sum(friend.invited for friend in view.friends)
    if view.result.won:
        return _game_won(pb.Event(game_won=pb.GameWon(invited_count=invited)))
    return _game_lost(pb.Event(game_lost=pb.GameLost(reason=view.result.reason, invited_count=invited)))


def describe_event(event: pb.Event) -> Phrase:
    return _EVENTS[event.WhichOneof("kind") or ""](event)


# --- commands ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Table:
    """What one answer's commands are described from, read from the view once."""

    board: Board
    facteur: int
    friends: dict[int, int]  # friend -> space, for those still in the forest
    passing: bool  # invite_in_passing
    drawn: Phrase
    kept: Phrase

    @staticmethod
    def of(view: pb.View) -> _Table:
        kept = next((k.tile for k in view.kept if view.HasField("active_seat") and k.seat == view.active_seat), None)
        return _Table(
            board=BOARDS.get(view.board.board) or BOARDS[pb.BOARD_EASY],
            facteur=view.facteur,
            friends={f.friend: f.cell for f in view.friends if f.HasField("cell")},
            passing=view.options.invite_in_passing,
            drawn=_source(pb.TILE_SOURCE_DRAWN, view.drawn.tile),
            kept=_source(pb.TILE_SOURCE_KEPT, kept or pb.Tile()),
        )

    def source(self, source: int) -> Phrase:
        return self.kept if source == pb.TILE_SOURCE_KEPT else self.drawn


def _source(source: int, used: pb.Tile) -> Phrase:
    """The tile a move uses: the one just drawn, or the one the active seat kept."""
    if source == pb.TILE_SOURCE_KEPT:
        return phrase("picnic.source.kept", "TILE_SOURCE_KEPT", tile=tile(used))
    return phrase("picnic.source.drawn", "TILE_SOURCE_DRAWN", tile=tile(used))


_CELL_CHOICES = Memo[int, Phrase]()
_ROUTE_CHOICES = Memo[tuple[int | None, tuple[int, ...]], Phrase]()
_MOVES = Memo[Hashable, Described](16384)


def _cell_choice(space: int) -> Phrase:
    return _CELL_CHOICES.get(space, lambda: phrase("picnic.choice.cell", cell=cell(space)))


def _by(start: int | None, steps: tuple[int, ...]) -> Step:
    """The extra step of a walk that ends where another does: its way."""
    walk = route(start, steps)
    label = _ROUTE_CHOICES.get((start, steps), lambda: phrase("picnic.choice.route", route=walk))
    return Step(StepRole.DESTINATION, "route", walk.value, label)


def _draw(command: pb.Command, view: pb.View, table: _Table, tied: bool) -> Described:
    place = command.draw.place
    back = view.lid[place].back if place < len(view.lid) else pb.TILE_BACK_UNSPECIFIED

    def make() -> Described:
        key = "picnic.command.draw_envelope" if back == pb.TILE_BACK_ENVELOPE else "picnic.command.draw"
        label = phrase(key, place=lid_place(place))
        return Described(label, (Step(StepRole.PIECE, "place", str(place), label),))

    return _MOVES.get(("draw", place, back), make)


def _move_facteur(command: pb.Command, view: pb.View, table: _Table, tied: bool) -> Described:
    move = command.move_facteur
    steps = tuple(move.route)
    used = table.source(move.source)
    start = table.facteur
    end = steps[-1] if steps else start
    reached = set(steps) if table.passing else {end}
    met = tuple(f for f, space in sorted(table.friends.items()) if space in reached and table.board.invitable(space))

    def make() -> Described:
        walk = route(start, steps)
        if end == table.board.picnic:
            label = phrase("picnic.command.move_facteur_picnic", route=walk, tile=used)
        elif met:
            friends = ListArg(tuple(friend(f) for f in met))
            label = phrase("picnic.command.move_facteur_invites", route=walk, tile=used, friends=friends)
        else:
            label = phrase("picnic.command.move_facteur", route=walk, tile=used)
        picks = (
            Step(StepRole.PIECE, "tile", used.value, used),
            Step(StepRole.DESTINATION, "cell", str(end), _cell_choice(end)),
        )
        return Described(label, (*picks, _by(start, steps)) if tied else picks)

    return _MOVES.get(("facteur", used, start, steps, met, tied), make)


def _keep_tile(command: pb.Command, view: pb.View, table: _Table, tied: bool) -> Described:
    used = table.drawn
    label = phrase("picnic.command.keep_tile", tile=used)
    return Described(label, (Step(StepRole.PIECE, "tile", used.value, used), action_step("keepTile", label)))


def _discard_tile(command: pb.Command, view: pb.View, table: _Table, tied: bool) -> Described:
    used = table.source(command.discard_tile.source)
    label = phrase("picnic.command.discard_tile", tile=used)
    return Described(label, (Step(StepRole.PIECE, "tile", used.value, used), action_step("discardTile", label)))


def _move_friend(command: pb.Command, view: pb.View, table: _Table, tied: bool) -> Described:
    walk_of = command.move_friend
    who, steps = walk_of.friend, tuple(walk_of.route)
    start = table.friends.get(who)
    end = steps[-1] if steps else (start or 0)
    invited = end == table.facteur and table.board.invitable(end)

    def make() -> Described:
        walk = route(start, steps)
        key = "picnic.command.move_friend_invited" if invited else "picnic.command.move_friend"
        label = phrase(key, friend=friend(who), route=walk)
        picks = (
            Step(StepRole.PIECE, "friend", str(who), friend(who)),
            Step(StepRole.DESTINATION, "cell", str(end), _cell_choice(end)),
        )
        return Described(label, (*picks, _by(start, steps)) if tied else picks)

    return _MOVES.get(("friend", who, start, steps, invited, tied), make)


def _place_tent(command: pb.Command, view: pb.View, table: _Table, tied: bool) -> Described:
    where = command.place_tent.cell
    label = phrase("picnic.command.place_tent", cell=cell(where))
    return Described(label, (Step(StepRole.DESTINATION, "cell", str(where), label),))


def _move_dragon(command: pb.Command, view: pb.View, table: _Table, tied: bool) -> Described:
    where = command.move_dragon.cell
    label = phrase("picnic.command.move_dragon", cell=cell(where))
    return Described(label, (Step(StepRole.DESTINATION, "cell", str(where), label),))


def _take_shelter(command: pb.Command, view: pb.View, table: _Table, tied: bool) -> Described:
    if command.take_shelter.shelter == pb.SHELTER_TENT and view.HasField("tent"):
        label = phrase("picnic.command.take_shelter_tent", cell=cell(view.tent))
        return Described(label, (Step(StepRole.DESTINATION, "shelter", "tent", label),))
    label = phrase("picnic.command.take_shelter_house")
    return Described(label, (Step(StepRole.DESTINATION, "shelter", "house", label),))


_COMMANDS: dict[str, Callable[[pb.Command, pb.View, _Table, bool], Described]] = {
    "draw": _draw,
    "move_facteur": _move_facteur,
    "keep_tile": _keep_tile,
    "discard_tile": _discard_tile,
    "move_friend": _move_friend,
    "place_tent": _place_tent,
    "move_dragon": _move_dragon,
    "take_shelter": _take_shelter,
}


def _piece_and_end(command: pb.Command, action: str) -> Hashable:
    """What a walk's steps pick (its piece and where it ends): two walks alike need
    their way too."""
    if action == "move_friend" and command.move_friend.route:
        return (action, command.move_friend.friend, command.move_friend.route[-1])
    if action == "move_facteur" and command.move_facteur.route:
        return (action, command.move_facteur.source, command.move_facteur.route[-1])
    return None


def describe_commands(commands: Sequence[pb.Command], view: pb.View) -> list[Described]:
    if not commands:
        return []
    table = _Table.of(view)
    actions = [command.WhichOneof("action") or "" for command in commands]
    keys = [_piece_and_end(command, action) for command, action in zip(commands, actions, strict=True)]
    tied = [tie and key is not None for tie, key in zip(ties(keys), keys, strict=True)]
    return [
        _COMMANDS[action](command, view, table, tie)
        for command, action, tie in zip(commands, actions, tied, strict=True)
    ]


def presets() -> list[tuple[str, pb.Options]]:
    """The named option sets of seeds/picnic/presets.json."""
    raw = load_json("picnic", "presets.json")["presets"]
    return [(p["name"], ParseDict(p["options"], pb.Options())) for p in raw]


DESCRIBER = Describer(
    kind="picnic",
    describe_event=describe_event,
    describe_outcome=describe_outcome,
    describe_commands=describe_commands,
    event_kinds=frozenset(_EVENTS),
    command_kinds=frozenset(_COMMANDS),
    rule_codes=RULE_CODES,
    material=material.material,
    presets=presets,
    seat_secrets=False,
)
