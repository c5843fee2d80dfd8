"""Where pieces may go: Facteur Souris along the paths, a friend across the
forest, the dragon towards Facteur Souris. Pure geometry over a Board; the rules
(rules.py) decide when each applies."""

from __future__ import annotations

from dataclasses import dataclass

from engines.picnic.board import Board

Route = tuple[int, ...]


def facteur_routes(board: Board, start: int, steps: int, *, dragon: int | None, short_moves: bool) -> list[Route]:
    """Every walk Facteur Souris may take with a tile of `steps` spaces: along the
    paths, never twice on a space. It is `steps` long, unless it reaches the
    picnic site (where he stops) or cannot go on; with short_moves it may stop
    after any space. He may tiptoe past the dragon but never stop on its space."""
    routes: list[Route] = []

    def walk(route: Route, here: int) -> None:
        if route and (here == board.picnic or len(route) == steps):
            routes.append(route)
            return
        onward = [n for n in board.path_neighbours[here] if n != start and n not in route]
        if route and (short_moves or not onward):
            routes.append(route)
        for there in onward:
            walk((*route, there), there)

    walk((), start)
    return [route for route in routes if route[-1] != dragon]


def friend_routes(board: Board, start: int, steps: int, *, facteur: int, short_moves: bool) -> list[Route]:
    """Every walk a friend may take with a Friend tile of `steps` spaces: from
    space to space orthogonally, over anything, never twice on a space. Meeting
    Facteur Souris on a space where an invitation can be received ends the walk
    (the friend is invited); the picnic site is entered only so. Otherwise as
    Facteur Souris's walks: `steps` long unless it cannot go on, or shorter with
    short_moves."""
    routes: list[Route] = []

    def walk(route: Route, here: int) -> None:
        met = route and here == facteur and board.invitable(here)
        if route and (met or len(route) == steps):
            routes.append(route)
            return
        onward = [
            n
            for n in board.grid_neighbours[here]
            if n != start and n not in route and (n != board.picnic or facteur == board.picnic)
        ]
        if route and (short_moves or not onward):
            routes.append(route)
        for there in onward:
            walk((*route, there), there)

    walk((), start)
    return routes


@dataclass(frozen=True, slots=True)
class DragonMove:
    """Where a Dragon tile may send the dragon: onto Facteur Souris (`reaches`),
    or one of `choices`, the spaces as many steps as it may walk along a shortest
    way to him. `stuck`: it stays where it is (no way to him, or already at the
    door of the house or picnic site where he stands)."""

    reaches: bool = False
    choices: tuple[int, ...] = ()

    @property
    def stuck(self) -> bool:
        return not self.reaches and not self.choices


def dragon_move(board: Board, dragon: int, facteur: int, arrows: int, *, flies: bool) -> DragonMove:
    def can_enter(cell: int) -> bool:
        return board.dragon_can_enter(cell, flies)

    to_facteur = board.distances(facteur, can_enter)
    distance = to_facteur.get(dragon)
    if distance is None:
        return DragonMove()
    if can_enter(facteur):
        if distance <= arrows:
            return DragonMove(reaches=True)
        steps = arrows
    else:  # he is at home or at the picnic site: the dragon comes to the door
        steps = min(arrows, distance - 1)
    if steps <= 0:
        return DragonMove()
    from_dragon = board.distances(dragon, can_enter, limit=steps)
    choices = tuple(sorted(c for c, d in from_dragon.items() if d == steps and to_facteur.get(c) == distance - steps))
    return DragonMove(choices=choices)
