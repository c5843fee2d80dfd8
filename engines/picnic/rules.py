"""The picnic's rules as a decider: setup, decide, evolve, legal_commands, status.

Read beside seeds/picnic/RULES.md, which names the test of each rule."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Any

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines import limits
from engines.contract import InvalidSetup, RuleViolation, SeatInfo, Status, playing
from engines.evolving import Rule, by_kind
from engines.immutable import own_copy, put, replacer
from engines.picnic.board import BOARD_NAMES, BOARDS, Board, BoardId
from engines.picnic.data import DATA
from engines.picnic.moves import Route, dragon_move, facteur_routes, friend_routes
from engines.picnic.state import Drawn, PicnicState, Result
from engines.picnic.tiles import LID_TILES, TILES, Tile, lid_tiles
from engines.seating import youngest_by_age

# dataclasses.replace, without its per-call introspection (engines/immutable.py).
replace = replacer(PicnicState)

MIN_SEATS, MAX_SEATS = 1, 4
FRIENDS_NEEDED = 4
# Rain tiles go back to the lid this many times in a game; after that, a Rain tile
# that falls leaves the game (unless endless_rain), so that every game ends.
RAIN_RETURNS = 10
TENT_SITES = (pb.TENT_SITE_FACTEUR, pb.TENT_SITE_CHOSEN)
PRESETS = (pb.PRESET_UNSPECIFIED, pb.PRESET_FIRST_GAME)
SHELTERS = (pb.SHELTER_HOUSE, pb.SHELTER_TENT)

# --- setup -----------------------------------------------------------------------


def resolve_options(options: pb.Options, seats: Sequence[SeatInfo]) -> pb.Options:
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise InvalidSetup(f"Facteur Souris's picnic is for 1 to 4 players, not {len(seats)}.")
    resolved = pb.Options()
    resolved.CopyFrom(options)
    if resolved.preset not in PRESETS:
        raise InvalidSetup(f"Unknown preset {resolved.preset}.")
    if resolved.preset == pb.PRESET_FIRST_GAME:
        _first_game(resolved)
    if resolved.board == pb.BOARD_UNSPECIFIED:
        resolved.board = pb.BOARD_EASY
    if resolved.board not in BOARD_NAMES:
        raise InvalidSetup(f"Unknown board {resolved.board}: choose BOARD_EASY or BOARD_HARD.")
    if resolved.tent_site == pb.TENT_SITE_UNSPECIFIED:
        resolved.tent_site = pb.TENT_SITE_FACTEUR
    if resolved.tent_site not in TENT_SITES:
        raise InvalidSetup(f"Unknown tent_site {resolved.tent_site}.")
    if resolved.HasField("first_seat"):
        if resolved.first_seat >= len(seats):
            raise InvalidSetup(f"first_seat must be below {len(seats)}, not {resolved.first_seat}.")
    else:
        youngest = youngest_by_age(seats)
        resolved.first_seat = 0 if youngest is None else youngest
    return resolved


def _first_game(options: pb.Options) -> None:
    """The rulebook's advice for a first game: the easy board, no variant, no Tent."""
    if options.board not in (pb.BOARD_UNSPECIFIED, pb.BOARD_EASY):
        raise InvalidSetup("The first-game preset plays the easy board: leave board unset or choose BOARD_EASY.")
    if options.cold_dragon or options.trap_rain:
        raise InvalidSetup("The first-game preset plays without the variants: no cold_dragon, no trap_rain.")
    options.board = pb.BOARD_EASY
    options.no_tents = True


def setup(options: pb.Options, seats: Sequence[SeatInfo], rng: random.Random) -> list[pb.Event]:
    """Shuffle the tiles face down into the places of the lid."""
    tiles = lid_tiles(options)
    rng.shuffle(tiles)
    started = pb.GameStarted(
        options=options, seat_count=len(seats), first_seat=options.first_seat, data_digest=DATA.digest
    )
    for tile in tiles:
        started.lid.add(back=tile.back, tile=tile.to_proto())
    return [pb.Event(game_started=started)]


# --- decide ------------------------------------------------------------------------


def decide(state: PicnicState, seat: int, command: pb.Command, rng: random.Random) -> list[pb.Event]:
    if state.phase == pb.PHASE_UNSPECIFIED:
        raise RuleViolation("not_started", "The game has not been set up yet.")
    if state.phase == pb.PHASE_FINISHED:
        raise RuleViolation("game_over", "The game is over.")
    if state.taking_effect:
        raise RuleViolation("wrong_phase", "Not now: the tile just drawn is taking effect.")
    if seat != state.active_seat:
        raise RuleViolation("not_your_turn", f"It is seat {state.active_seat}'s turn, not seat {seat}'s.")
    action = command.WhichOneof("action")
    if action == "draw":
        return _draw(state, seat, command.draw)
    if action == "move_facteur":
        return _move_facteur(state, seat, command.move_facteur)
    if action == "keep_tile":
        return _keep(state, seat)
    if action == "discard_tile":
        return _discard(state, seat, command.discard_tile)
    if action == "move_friend":
        return _move_friend(state, seat, command.move_friend)
    if action == "place_tent":
        return _place_tent(state, seat, command.place_tent)
    if action == "move_dragon":
        return _move_dragon(state, seat, command.move_dragon)
    if action == "take_shelter":
        return _take_shelter(state, seat, command.take_shelter)
    raise RuleViolation("unknown_command", "That is not a move of Facteur Souris's picnic.")


_PHASE_ASKS = {
    pb.PHASE_DRAW: "draw a tile from the lid",
    pb.PHASE_FACTEUR: "use, keep or discard the Facteur Souris tile",
    pb.PHASE_FRIEND: "walk a friend with the Friend tile",
    pb.PHASE_TENT: "choose where the Tent stands",
    pb.PHASE_DRAGON: "choose the dragon's way",
    pb.PHASE_SHELTER: "choose where Facteur Souris shelters from the rain",
}


def _wrong_phase(state: PicnicState) -> RuleViolation:
    return RuleViolation("wrong_phase", f"Not now: {_PHASE_ASKS.get(state.phase, 'wait')}.")


def _draw(state: PicnicState, seat: int, draw: pb.Draw) -> list[pb.Event]:
    if state.phase != pb.PHASE_DRAW:
        raise _wrong_phase(state)
    if draw.place >= len(state.lid):
        raise RuleViolation("unknown_place", f"The lid has places 0 to {len(state.lid) - 1}, not {draw.place}.")
    tile = state.lid[draw.place]
    if tile is None:
        raise RuleViolation("empty_place", f"Place {draw.place} is empty: pick a place that holds a tile.")
    events = [pb.Event(tile_drawn=pb.TileDrawn(seat=seat, place=draw.place, tile=tile.to_proto()))]
    if tile.kind == pb.TILE_KIND_RAIN:
        if shelter_choice(state):
            return events  # the drawer chooses: the Tent or the house (TakeShelter)
        return _settle(state, events + _rain(state, draw.place, pb.SHELTER_HOUSE))
    if tile.kind == pb.TILE_KIND_NIGHT:
        events.append(pb.Event(night_fell=pb.NightFell(space=len(state.nights) + 1)))
        return _settle(state, events)
    if tile.kind == pb.TILE_KIND_TENT:
        if _options(state).tent_site == pb.TENT_SITE_CHOSEN:
            return events  # the drawer chooses the site (PlaceTent)
        if state.facteur == state.board.picnic:  # no Tent on the picnic site: the tile is set aside
            unused = pb.TileDiscarded(seat=seat, source=pb.TILE_SOURCE_DRAWN, tile=tile.to_proto())
            return _settle(state, [*events, pb.Event(tile_discarded=unused)])
        return _settle(state, [*events, pb.Event(tent_built=pb.TentBuilt(cell=state.facteur))])
    if tile.kind == pb.TILE_KIND_FRIEND:
        if not _friend_moves(state, tile):
            discarded = pb.TileDiscarded(seat=seat, source=pb.TILE_SOURCE_DRAWN, tile=tile.to_proto())
            return _settle(state, [*events, pb.Event(tile_discarded=discarded)])
        return events
    if tile.kind == pb.TILE_KIND_DRAGON:
        return _dragon_auto(state, seat, tile, events)
    return events  # a Facteur Souris tile: use, keep or discard it


def shelter_choice(state: PicnicState) -> bool:
    """Whether Rain lets the player choose between two shelters: a Tent stands,
    away from the house (« il peut s'y réfugier ... au lieu de revenir jusqu'à sa
    maison »)."""
    return state.tent is not None and state.tent != state.board.house


def _take_shelter(state: PicnicState, seat: int, take: pb.TakeShelter) -> list[pb.Event]:
    if state.phase != pb.PHASE_SHELTER or state.drawn is None:
        raise _wrong_phase(state)
    if take.shelter not in SHELTERS:
        raise RuleViolation("unknown_shelter", "Facteur Souris shelters in his house (SHELTER_HOUSE) or the Tent.")
    return _settle(state, _rain(state, state.drawn.place, take.shelter))


def _rain(state: PicnicState, place: int, shelter: pb.Shelter.ValueType) -> list[pb.Event]:
    """Facteur Souris runs to `shelter`, the Rain tile goes back to `place` (once Rain
    tiles went back RAIN_RETURNS times, it leaves the game instead), and a friend
    standing at the shelter is invited: he arrives on its space."""
    board = state.board
    cell = state.tent if shelter == pb.SHELTER_TENT and state.tent is not None else board.house
    left_game = not _options(state).endless_rain and state.rains_back >= RAIN_RETURNS
    events = [pb.Event(rain_fell=pb.RainFell(place=place, shelter=shelter, cell=cell, left_game=left_game))]
    return events + _invitations(state, [cell], pb.MEETING_FACTEUR_CAME)


def _invitations(state: PicnicState, spaces: Sequence[int], meeting: pb.Meeting.ValueType) -> list[pb.Event]:
    """The friends standing on `spaces` where an invitation can be received, each
    invited in turn (they go to the picnic site)."""
    events = []
    count = state.invited_count
    for cell in spaces:
        if not state.board.invitable(cell):
            continue
        for friend, at in enumerate(state.friends):
            if at == cell:
                count += 1
                invited = pb.FriendInvited(friend=friend, cell=cell, meeting=meeting, invited_count=count)
                events.append(pb.Event(friend_invited=invited))
    return events


def _dragon_auto(state: PicnicState, seat: int, tile: Tile, events: list[pb.Event]) -> list[pb.Event]:
    """The dragon's walk when nobody needs to choose it."""
    assert state.dragon is not None
    move = dragon_move(state.board, state.dragon, state.facteur, tile.value, flies=_options(state).dragon_flies)
    moved = pb.DragonMoved(seat=seat, tile=tile.to_proto(), start=state.dragon, to=state.dragon, stuck=move.stuck)
    if move.reaches:
        moved.to = state.facteur
    elif len(move.choices) > 1:
        return events  # a tie: the drawer chooses (MoveDragon)
    elif move.choices:
        moved.to = move.choices[0]
    return _settle(state, [*events, pb.Event(dragon_moved=moved)])


def _move_facteur(state: PicnicState, seat: int, move: pb.MoveFacteur) -> list[pb.Event]:
    options = _options(state)
    kept = state.kept[seat]
    if state.phase == pb.PHASE_DRAW:
        if move.source != pb.TILE_SOURCE_KEPT:
            raise RuleViolation("draw_first", "Draw a tile first; before drawing you may only use your kept tile.")
        if options.kept_tile_only_with_draw:
            raise RuleViolation(
                "kept_tile_not_now", "In this game a kept tile is used only when you draw another Facteur Souris tile."
            )
    elif state.phase != pb.PHASE_FACTEUR:
        raise _wrong_phase(state)
    if move.source == pb.TILE_SOURCE_KEPT:
        if kept is None:
            raise RuleViolation("no_kept_tile", "You have no tile kept in front of you.")
        tile = kept
    elif move.source == pb.TILE_SOURCE_DRAWN:
        assert state.drawn is not None
        tile = state.drawn.tile
    else:
        raise RuleViolation("unknown_source", "Say which tile you use: the one drawn or the one kept.")
    route = tuple(move.route)
    if route not in _facteur_moves(state, tile):
        raise RuleViolation(
            "bad_route",
            f"Facteur Souris walks {tile.value} space(s) along the paths, never twice on a space, stopping early "
            "only at the picnic site or where he cannot go on, and never on the dragon's space.",
        )
    moved = pb.FacteurMoved(seat=seat, source=move.source, tile=tile.to_proto(), start=state.facteur, route=route)
    visited = route if options.invite_in_passing else route[-1:]
    events = [pb.Event(facteur_moved=moved), *_invitations(state, visited, pb.MEETING_FACTEUR_CAME)]
    if state.phase == pb.PHASE_FACTEUR and move.source == pb.TILE_SOURCE_KEPT:
        assert state.drawn is not None
        events.append(pb.Event(tile_kept=pb.TileKept(seat=seat, tile=state.drawn.tile.to_proto())))
    # Before drawing, the turn goes on: the player still draws.
    return _settle(state, events, ends_turn=state.phase == pb.PHASE_FACTEUR)


def _keep(state: PicnicState, seat: int) -> list[pb.Event]:
    if state.phase != pb.PHASE_FACTEUR or state.drawn is None:
        raise RuleViolation("nothing_to_keep", "Only a Facteur Souris tile you just drew may be kept.")
    if state.kept[seat] is not None:
        raise RuleViolation(
            "already_holding", "You already hold a tile: one tile in front of you at most. Use or discard one."
        )
    return _settle(state, [pb.Event(tile_kept=pb.TileKept(seat=seat, tile=state.drawn.tile.to_proto()))])


def _discard(state: PicnicState, seat: int, discard: pb.DiscardTile) -> list[pb.Event]:
    if state.phase != pb.PHASE_FACTEUR or state.drawn is None:
        raise RuleViolation(
            "nothing_to_discard", "A tile is discarded only when you draw a second Facteur Souris tile."
        )
    kept = state.kept[seat]
    if kept is None:
        raise RuleViolation("nothing_to_discard", "You hold no other tile: use this one or keep it.")
    drawn = state.drawn.tile
    if discard.source == pb.TILE_SOURCE_DRAWN:
        gone = pb.TileDiscarded(seat=seat, source=pb.TILE_SOURCE_DRAWN, tile=drawn.to_proto())
        return _settle(state, [pb.Event(tile_discarded=gone)])
    if discard.source == pb.TILE_SOURCE_KEPT:
        gone = pb.TileDiscarded(seat=seat, source=pb.TILE_SOURCE_KEPT, tile=kept.to_proto())
        keep = pb.TileKept(seat=seat, tile=drawn.to_proto())
        return _settle(state, [pb.Event(tile_discarded=gone), pb.Event(tile_kept=keep)])
    raise RuleViolation("unknown_source", "Say which tile you discard: the one drawn or the one kept.")


def _move_friend(state: PicnicState, seat: int, move: pb.MoveFriend) -> list[pb.Event]:
    if state.phase != pb.PHASE_FRIEND or state.drawn is None:
        raise _wrong_phase(state)
    tile = state.drawn.tile
    if move.friend >= len(state.friends):
        raise RuleViolation("unknown_friend", f"There are friends 0 to {len(state.friends) - 1}, not {move.friend}.")
    start = state.friends[move.friend]
    if start is None:
        raise RuleViolation("friend_at_picnic", "That friend is already at the picnic.")
    route = tuple(move.route)
    if route not in _friend_routes(state, start, tile):
        raise RuleViolation(
            "bad_route",
            f"A friend walks {tile.value} space(s) from one space to the next, never diagonally nor twice on a "
            "space, and enters the picnic site only to meet Facteur Souris there.",
        )
    moved = pb.FriendMoved(seat=seat, friend=move.friend, tile=tile.to_proto(), start=start, route=route)
    events = [pb.Event(friend_moved=moved)]
    end = route[-1]
    if end == state.facteur and state.board.invitable(end):
        count = state.invited_count + 1
        invited = pb.FriendInvited(friend=move.friend, cell=end, meeting=pb.MEETING_FRIEND_CAME, invited_count=count)
        events.append(pb.Event(friend_invited=invited))
    return _settle(state, events)


def _place_tent(state: PicnicState, seat: int, place: pb.PlaceTent) -> list[pb.Event]:
    if state.phase != pb.PHASE_TENT:
        raise _wrong_phase(state)
    if place.cell not in tent_sites(state.board):
        raise RuleViolation("bad_tent_site", "The Tent goes on a path space, not on the picnic site.")
    return _settle(state, [pb.Event(tent_built=pb.TentBuilt(cell=place.cell))])


def _move_dragon(state: PicnicState, seat: int, move: pb.MoveDragon) -> list[pb.Event]:
    if state.phase != pb.PHASE_DRAGON or state.drawn is None or state.dragon is None:
        raise _wrong_phase(state)
    if move.cell not in dragon_choices(state):
        raise RuleViolation("bad_dragon_move", "The dragon takes a shortest way to Facteur Souris: pick one of those.")
    moved = pb.DragonMoved(seat=seat, tile=state.drawn.tile.to_proto(), start=state.dragon, to=move.cell)
    return _settle(state, [pb.Event(dragon_moved=moved)])


# --- the end of a move: won, lost, or the next turn ----------------------------------


def _settle(state: PicnicState, events: list[pb.Event], *, ends_turn: bool = True) -> list[pb.Event]:
    """`events` and what follows them. « La partie s'arrête immédiatement »: the end
    is checked after every move, whatever moved whom (a tile, the rain, the
    dragon); otherwise the turn passes (unless the move was the kept tile played
    before drawing)."""
    after = state
    for event in events:
        after = evolve(after, event)
    ending = game_end(after)
    if ending is not None:
        return [*events, ending]
    return [*events, _next_turn(state)] if ends_turn else events


def game_end(state: PicnicState) -> pb.Event | None:
    """GameWon or GameLost when the game is over in `state`, else None."""
    board = state.board
    if state.facteur == board.picnic and state.invited_count >= FRIENDS_NEEDED:
        won = pb.GameWon(invited_count=state.invited_count, nights=len(state.nights), revealed=_revealed(state))
        return pb.Event(game_won=won)
    if state.dragon is not None and state.dragon == state.facteur:
        return _lost(state, pb.LOSS_REASON_DRAGON)
    if len(state.nights) >= board.night_spaces:
        return _lost(state, pb.LOSS_REASON_NIGHT)
    return None


def _revealed(state: PicnicState) -> list[pb.RevealedTile]:
    """Every tile left in the lid, face up: at the end, everyone may look."""
    return [
        pb.RevealedTile(place=place, tile=tile.to_proto()) for place, tile in enumerate(state.lid) if tile is not None
    ]


def _next_turn(state: PicnicState) -> pb.Event:
    return pb.Event(turn_passed=pb.TurnPassed(seat=(state.active_seat + 1) % state.seat_count))


def _lost(state: PicnicState, reason: pb.LossReason.ValueType) -> pb.Event:
    lost = pb.GameLost(reason=reason, invited_count=state.invited_count, revealed=_revealed(state))
    return pb.Event(game_lost=lost)


def _options(state: PicnicState) -> pb.Options:
    assert state.options is not None
    return state.options


# --- where things may go -----------------------------------------------------------


def _facteur_moves(state: PicnicState, tile: Tile) -> tuple[Route, ...]:
    short = _options(state).short_moves
    return _cached_facteur_routes(state.board_id, state.facteur, tile.value, state.dragon, short)


def _friend_routes(state: PicnicState, start: int, tile: Tile) -> tuple[Route, ...]:
    short = _options(state).short_moves
    return _cached_friend_routes(state.board_id, start, tile.value, state.facteur, short)


# The walks depend on a handful of small values: remembering them makes deciding
# (and the bots' look-ahead) cheap.
@functools.lru_cache(maxsize=8192)
def _cached_facteur_routes(
    board_id: BoardId, start: int, steps: int, dragon: int | None, short: bool
) -> tuple[Route, ...]:

    return tuple(facteur_routes(BOARDS[board_id], start, steps, dragon=dragon, short_moves=short))


@functools.lru_cache(maxsize=8192)
def _cached_friend_routes(board_id: BoardId, start: int, steps: int, facteur: int, short: bool) -> tuple[Route, ...]:
    return tuple(friend_routes(BOARDS[board_id], start, steps, facteur=facteur, short_moves=short))


def _friend_moves(state: PicnicState, tile: Tile) -> list[tuple[int, Route]]:
    return [
        (friend, route)
        for friend, cell in enumerate(state.friends)
        if cell is not None
        for route in _friend_routes(state, cell, tile)
    ]


def tent_sites(board: Board) -> list[int]:
    return [cell for cell in board.cells if board.path[cell] and cell != board.picnic]


def dragon_choices(state: PicnicState) -> tuple[int, ...]:
    """Where the dragon may go now (PHASE_DRAGON): the tied shortest ways."""
    if state.phase != pb.PHASE_DRAGON or state.drawn is None or state.dragon is None:
        return ()
    arrows = state.drawn.tile.value
    return dragon_move(state.board, state.dragon, state.facteur, arrows, flies=_options(state).dragon_flies).choices


# --- evolve ------------------------------------------------------------------------


def _game_started(state: PicnicState, started: pb.GameStarted) -> PicnicState:
    """The tiles lie face down in the lid; Facteur Souris and his friends stand at their
    starting spaces (and the dragon at its cave, in the Cold Dragon variant)."""
    DATA.require(started.data_digest)
    options = own_copy(started.options)
    board = BOARDS[options.board]
    lid = LID_TILES.of_field(started, "lid")
    return PicnicState(
        phase=pb.PHASE_DRAW,
        board_id=options.board,
        seat_count=started.seat_count,
        active_seat=started.first_seat,
        backs=tuple(back for back, _ in lid),
        lid=tuple(tile for _, tile in lid),
        facteur=board.house,
        friends=board.friend_starts,
        dragon=board.dragon_start if options.cold_dragon else None,
        kept=(None,) * started.seat_count,
        options=options,
    )


# A drawn tile waits for its player's decision in these phases; the others take
# effect at once. Once a drawn tile is played, the phase is PHASE_DRAW again until
# the turn passes (the same command's next event).
_PHASE_AFTER_DRAW = {
    pb.TILE_KIND_FACTEUR: pb.PHASE_FACTEUR,
    pb.TILE_KIND_FRIEND: pb.PHASE_FRIEND,
    pb.TILE_KIND_TENT: pb.PHASE_TENT,
    pb.TILE_KIND_DRAGON: pb.PHASE_DRAGON,
}


def _tile_drawn(state: PicnicState, drawn: pb.TileDrawn) -> PicnicState:
    """The tile is turned over for all to see; what it does waits for the player's
    choice (the phase), or follows in the move's next events. Rain lets the player
    choose a shelter when a Tent stands away from the house."""
    tile = TILES.of(drawn.tile)
    phase = _PHASE_AFTER_DRAW.get(tile.kind, state.phase)
    if tile.kind == pb.TILE_KIND_RAIN and shelter_choice(state):
        phase = pb.PHASE_SHELTER
    return replace(
        state,
        phase=phase,
        lid=put(state.lid, drawn.place, None),
        drawn=Drawn(drawn.seat, drawn.place, tile),
        rain_places=state.rain_places - {drawn.place},
    )


def _facteur_moved(state: PicnicState, moved: pb.FacteurMoved) -> PicnicState:
    """Facteur Souris walks to the end of his route; the tile he walked with leaves the game."""
    if moved.source == pb.TILE_SOURCE_KEPT:
        kept = _kept_tile(state, moved.seat)
        return replace(
            state,
            facteur=moved.route[-1],
            kept=put(state.kept, moved.seat, None),
            removed=(*state.removed, kept),
        )
    return _played(state, facteur=moved.route[-1])


def _friend_moved(state: PicnicState, moved: pb.FriendMoved) -> PicnicState:
    """The friend walks to the end of the route; the Friend tile leaves the game."""
    return _played(state, friends=put(state.friends, moved.friend, moved.route[-1]))


def _friend_invited(state: PicnicState, invited: pb.FriendInvited) -> PicnicState:
    """An invited friend goes straight to the picnic site."""
    return replace(state, friends=put(state.friends, invited.friend, None))


def _rain_fell(state: PicnicState, rain: pb.RainFell) -> PicnicState:
    """Facteur Souris runs to his shelter; the Rain tile goes back face down to the
    very place it came from, which everyone saw (or, once the Rain tiles went back
    RAIN_RETURNS times, leaves the game)."""
    tile = _drawn_tile(state)
    if rain.left_game:
        return _played(state, facteur=rain.cell)
    return replace(
        state,
        phase=pb.PHASE_DRAW,
        lid=put(state.lid, rain.place, tile),
        facteur=rain.cell,
        drawn=None,
        rain_places=state.rain_places | {rain.place},
        rains_back=state.rains_back + 1,
    )


def _tent_built(state: PicnicState, built: pb.TentBuilt) -> PicnicState:
    """The Tent goes up (a second one replaces the first, which leaves the game)."""
    removed = state.removed if state.tent_tile is None else (*state.removed, state.tent_tile)
    tile = _drawn_tile(state)
    return replace(state, phase=pb.PHASE_DRAW, tent=built.cell, tent_tile=tile, drawn=None, removed=removed)


def _night_fell(state: PicnicState, night: pb.NightFell) -> PicnicState:
    """The Night tile goes on the next night space."""
    return replace(state, phase=pb.PHASE_DRAW, nights=(*state.nights, _drawn_tile(state)), drawn=None)


def _tile_kept(state: PicnicState, kept: pb.TileKept) -> PicnicState:
    """The drawn Facteur Souris tile waits in front of its player (one each at most)."""
    tile = _drawn_tile(state)
    return replace(state, phase=pb.PHASE_DRAW, kept=put(state.kept, kept.seat, tile), drawn=None)


def _tile_discarded(state: PicnicState, gone: pb.TileDiscarded) -> PicnicState:
    """A tile leaves the game unused: the one drawn, or the one kept."""
    if gone.source == pb.TILE_SOURCE_KEPT:
        tile = _kept_tile(state, gone.seat)
        return replace(state, kept=put(state.kept, gone.seat, None), removed=(*state.removed, tile))
    return _played(state)


def _dragon_moved(state: PicnicState, moved: pb.DragonMoved) -> PicnicState:
    """The dragon walks its way towards Facteur Souris; the Dragon tile leaves the game."""
    return _played(state, dragon=moved.to)


def _turn_passed(state: PicnicState, passed: pb.TurnPassed) -> PicnicState:
    """The next player draws."""
    return replace(state, phase=pb.PHASE_DRAW, active_seat=passed.seat)


def _game_won(state: PicnicState, won: pb.GameWon) -> PicnicState:
    """Facteur Souris is at the picnic with four friends: everybody wins."""
    return replace(state, phase=pb.PHASE_FINISHED, result=Result(won=True))


def _game_lost(state: PicnicState, lost: pb.GameLost) -> PicnicState:
    """The sixth night fell, or the dragon caught Facteur Souris: everybody loses."""
    return replace(state, phase=pb.PHASE_FINISHED, result=Result(won=False, reason=lost.reason))


# Each kind of event's rule, above.
_EVOLVE: dict[str, Rule[PicnicState]] = {
    "game_started": _game_started,
    "tile_drawn": _tile_drawn,
    "facteur_moved": _facteur_moved,
    "friend_moved": _friend_moved,
    "friend_invited": _friend_invited,
    "rain_fell": _rain_fell,
    "tent_built": _tent_built,
    "night_fell": _night_fell,
    "tile_kept": _tile_kept,
    "tile_discarded": _tile_discarded,
    "dragon_moved": _dragon_moved,
    "turn_passed": _turn_passed,
    "game_won": _game_won,
    "game_lost": _game_lost,
    "game_stopped": limits.game_stopped,
}

# The state after an event: the rule of its kind (engines/evolving.py).
evolve = by_kind(pb.Event, _EVOLVE)


def _played(state: PicnicState, **changes: Any) -> PicnicState:
    """`state` with `changes`, once the drawn tile has done what it does and left the
    game: the player is back in PHASE_DRAW until the turn passes."""
    return replace(state, phase=pb.PHASE_DRAW, drawn=None, removed=(*state.removed, _drawn_tile(state)), **changes)


def _drawn_tile(state: PicnicState) -> Tile:
    assert state.drawn is not None
    return state.drawn.tile


def _kept_tile(state: PicnicState, seat: int) -> Tile:
    tile = state.kept[seat]
    assert tile is not None
    return tile


# --- questions ---------------------------------------------------------------------


def legal_commands(state: PicnicState, seat: int) -> list[pb.Command]:
    if state.phase in (pb.PHASE_UNSPECIFIED, pb.PHASE_FINISHED) or seat != state.active_seat:
        return []
    if state.taking_effect:
        return []
    kept = state.kept[seat]
    commands: list[pb.Command] = []
    if state.phase == pb.PHASE_DRAW:
        commands += [pb.Command(draw=pb.Draw(place=p)) for p, tile in enumerate(state.lid) if tile is not None]
        if kept is not None and not _options(state).kept_tile_only_with_draw:
            commands += _facteur_commands(state, pb.TILE_SOURCE_KEPT, kept)
        return commands
    assert state.drawn is not None
    drawn = state.drawn.tile
    if state.phase == pb.PHASE_FACTEUR:
        commands += _facteur_commands(state, pb.TILE_SOURCE_DRAWN, drawn)
        if kept is None:
            return [*commands, pb.Command(keep_tile=pb.KeepTile())]
        commands += _facteur_commands(state, pb.TILE_SOURCE_KEPT, kept)
        sources = (pb.TILE_SOURCE_DRAWN, pb.TILE_SOURCE_KEPT)
        return commands + [pb.Command(discard_tile=pb.DiscardTile(source=source)) for source in sources]
    if state.phase == pb.PHASE_FRIEND:
        return [
            pb.Command(move_friend=pb.MoveFriend(friend=friend, route=route))
            for friend, route in _friend_moves(state, drawn)
        ]
    if state.phase == pb.PHASE_TENT:
        return [pb.Command(place_tent=pb.PlaceTent(cell=cell)) for cell in tent_sites(state.board)]
    if state.phase == pb.PHASE_DRAGON:
        return [pb.Command(move_dragon=pb.MoveDragon(cell=cell)) for cell in dragon_choices(state)]
    if state.phase == pb.PHASE_SHELTER:
        return [pb.Command(take_shelter=pb.TakeShelter(shelter=shelter)) for shelter in SHELTERS]
    return []


def _facteur_commands(state: PicnicState, source: pb.TileSource.ValueType, tile: Tile) -> list[pb.Command]:
    return [
        pb.Command(move_facteur=pb.MoveFacteur(source=source, route=route)) for route in _facteur_moves(state, tile)
    ]


def status(state: PicnicState) -> Status:
    if state.result is None:
        waiting = state.phase != pb.PHASE_UNSPECIFIED and not state.taking_effect
        return playing(state.active_seat if waiting else None)
    everyone = tuple(range(state.seat_count))
    friends = state.invited_count
    if state.result.won:
        summary = f"Facteur Souris reached the picnic with {friends} friends before nightfall: everybody wins!"
        return Status(finished=True, winners=everyone, summary=summary)
    if state.result.reason == pb.LOSS_REASON_DRAGON:
        summary = "The Cold Dragon caught Facteur Souris and sneezed fire on the invitations: everybody loses."
    else:
        summary = f"The sixth night fell with {friends} friend(s) at the picnic: everybody loses."
    return Status(finished=True, summary=summary)
