"""What the property suite proves of Le pique-nique de Facteur Souris
(engines/registration.py's Proof), from the rulebook rather than from
engines/picnic/rules.py: every tile is somewhere, the game is won or lost when the
rulebook says, which commands one could send, which states a viewer cannot tell
apart, and what a move shows. Read by the tests only (tests/support/engine_properties.py), never by the rules."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from dataclasses import replace

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.contract import Viewer
from engines.picnic.bots import greedy_bot
from engines.picnic.engine import ENGINE
from engines.picnic.state import PicnicState
from engines.registration import Move, Proof

PLAIN, ENVELOPE = pb.TILE_BACK_PLAIN, pb.TILE_BACK_ENVELOPE
LAPIN = 0  # the first friend


def draw(place_: int) -> pb.Command:
    return pb.Command(draw=pb.Draw(place=place_))


def walk(*route: int, source: pb.TileSource.ValueType = pb.TILE_SOURCE_DRAWN) -> pb.Command:
    return pb.Command(move_facteur=pb.MoveFacteur(source=source, route=route))


def use_kept(*route: int) -> pb.Command:
    return walk(*route, source=pb.TILE_SOURCE_KEPT)


def keep() -> pb.Command:
    return pb.Command(keep_tile=pb.KeepTile())


def discard(source: pb.TileSource.ValueType) -> pb.Command:
    return pb.Command(discard_tile=pb.DiscardTile(source=source))


def move_friend(friend_: int, *route: int) -> pb.Command:
    return pb.Command(move_friend=pb.MoveFriend(friend=friend_, route=route))


def place_tent(cell: int) -> pb.Command:
    return pb.Command(place_tent=pb.PlaceTent(cell=cell))


def move_dragon(cell: int) -> pb.Command:
    return pb.Command(move_dragon=pb.MoveDragon(cell=cell))


def rulebook_outcome(state: PicnicState) -> tuple[int, ...] | None:
    """« La partie s'arrête immédiatement »: won (every seat) when Facteur Souris is
    at the picnic site with at least 4 friends there; lost (no seat) when the sixth
    night is down, or when the dragon stands on his space; None otherwise."""
    board = state.board
    if state.facteur == board.picnic and sum(cell is None for cell in state.friends) >= 4:
        return tuple(range(state.seat_count))
    if len(state.nights) >= board.night_spaces or (state.dragon is not None and state.dragon == state.facteur):
        return ()
    return None


def inventory(state: PicnicState) -> Counter[Hashable]:
    """Every tile wherever it is: in the lid, drawn, kept, on a night space, up as
    the Tent, or out of the game."""
    items: Counter[Hashable] = Counter(tile for tile in state.lid if tile is not None)
    items.update(tile for tile in state.kept if tile is not None)
    items.update(state.removed)
    items.update(state.nights)
    if state.drawn is not None:
        items[state.drawn.tile] += 1
    if state.tent_tile is not None:
        items[state.tent_tile] += 1
    return items


def command_universe(state: PicnicState) -> list[pb.Command]:
    """Legal and illegal moves alike: a sample of the active seat's legal moves
    (every one would make the suite slow), and broken variants of them."""
    if state.phase in (pb.PHASE_UNSPECIFIED, pb.PHASE_FINISHED):
        return [draw(0), keep(), pb.Command()]
    legal = ENGINE.legal_commands(state, state.active_seat)
    sample = legal[:: max(1, len(legal) // 6)]
    board = state.board
    empty = [p for p, tile in enumerate(state.lid) if tile is None]
    commands = [*sample, draw(len(state.lid)), draw(99), *(draw(p) for p in empty[:1])]
    near = board.path_neighbours[state.facteur]
    for source in (pb.TILE_SOURCE_DRAWN, pb.TILE_SOURCE_KEPT, pb.TILE_SOURCE_UNSPECIFIED):
        commands += [walk(source=source), walk(near[0], source=source), walk(board.picnic, source=source)]
    for command in sample:
        action = command.WhichOneof("action")
        if action in ("move_facteur", "move_friend"):
            moved = getattr(command, action)
            longer, shorter = pb.Command(), pb.Command()
            longer.CopyFrom(command)
            getattr(longer, action).route.append(getattr(command, action).route[0])
            shorter.CopyFrom(command)
            del getattr(shorter, action).route[-1:]
            commands += [longer, shorter]
            if action == "move_friend":
                commands.append(move_friend(len(state.friends), *moved.route))
    commands += [keep(), *(discard(s) for s in (pb.TILE_SOURCE_DRAWN, pb.TILE_SOURCE_KEPT, pb.TILE_SOURCE_UNSPECIFIED))]
    commands += [move_friend(LAPIN, board.picnic), move_friend(9, 0)]
    commands += [place_tent(board.picnic), place_tent(board.house), place_tent(0), place_tent(999)]
    commands += [move_dragon(state.dragon if state.dragon is not None else 0), move_dragon(999), pb.Command()]
    shelters = (pb.SHELTER_UNSPECIFIED, pb.SHELTER_HOUSE, pb.SHELTER_TENT)
    commands += [pb.Command(take_shelter=pb.TakeShelter(shelter=shelter)) for shelter in shelters]
    return commands


def perturb(state: PicnicState, viewer: Viewer, rng: random.Random) -> PicnicState:
    """A state that differs from `state` only in what `viewer` cannot know: which
    face lies at each occupied place of the lid, among places with the same back
    (a Rain tile that went back included: the view must not give it away). Once
    the game is over, the lid is turned over for everyone: nothing is hidden."""
    if viewer.is_admin or not state.lid or state.result is not None:
        return state
    lid = list(state.lid)
    for back in (PLAIN, ENVELOPE):
        places = [p for p, tile in enumerate(lid) if tile is not None and state.backs[p] == back]
        tiles = [lid[p] for p in places]
        rng.shuffle(tiles)
        for p, tile in zip(places, tiles, strict=True):
            lid[p] = tile
    return replace(state, lid=tuple(lid))


def reveals(move: Move[PicnicState, pb.Command], viewer: Viewer) -> Hashable:
    """What a move shows, as the rulebook tells it: a draw turns a tile of the lid over
    for all (« le joueur actif pioche une tuile dans le couvercle et applique son
    effet »: a Rain tile goes back « à l'endroit où elle a été piochée », seen); and
    when the game « s'arrête immédiatement », won or lost, the lid is turned over
    (seeds/picnic/RULES.md): every face and where it lay. No other move turns a
    tile: Facteur Souris, the friends, the Tent and the Dragon are on the board."""
    before, command = move.before, move.command
    if rulebook_outcome(move.after) is not None:
        return before.lid
    if command.HasField("draw") and command.draw.place < len(before.lid):
        return before.lid[command.draw.place]
    return None


def sensible(state: PicnicState, seat: int, legal: list[pb.Command], rng: random.Random) -> pb.Command:
    """Mostly the greedy bot, sometimes any legal move: games that are won as
    well as lost, through every kind of move."""
    if rng.random() < 0.25:
        return rng.choice(legal)
    return greedy_bot(state, seat, rng)


_BOARDS = (pb.BOARD_UNSPECIFIED, pb.BOARD_EASY, pb.BOARD_HARD)
_TENT_SITES = (pb.TENT_SITE_UNSPECIFIED, pb.TENT_SITE_FACTEUR, pb.TENT_SITE_CHOSEN)
_SWITCHES = (
    "cold_dragon",
    "trap_rain",
    "no_tents",
    "short_moves",
    "invite_in_passing",
    "kept_tile_only_with_draw",
    "dragon_flies",
)


def random_options(rng: random.Random, seats: int) -> pb.Options:
    """Either board, any variant; the first-game preset when its variants are off."""
    options = pb.Options(board=rng.choice(_BOARDS), tent_site=rng.choice(_TENT_SITES))
    for name in _SWITCHES:
        setattr(options, name, rng.random() < 0.5)
    if not (options.cold_dragon or options.trap_rain or options.board == pb.BOARD_HARD) and options.no_tents:
        options.preset = pb.PRESET_FIRST_GAME
    return options


PROOF: Proof[PicnicState, pb.Command] = Proof(
    inventory=inventory,
    command_universe=command_universe,
    perturb=perturb,
    reveals=reveals,
    outcome=rulebook_outcome,
    # A turn makes a handful of events and removes a tile for good, unless it is a
    # Rain tile going back; a random player picks a Rain place rarely enough.
    max_events=4000,
    random_options=random_options,
    player=sensible,
    varied_options=(
        pb.Options(cold_dragon=True, trap_rain=True, short_moves=True),
        pb.Options(board=pb.BOARD_HARD, tent_site=pb.TENT_SITE_CHOSEN, invite_in_passing=True),
    ),
)
