"""The strong bots' search: information-set Monte Carlo tree search (single observer),
one search for every game, told about a game by a `SearchGame`.

Each iteration samples a world the searching seat cannot tell apart from the real one
(the game's `determinise`, built from what the seat saw and remembers, never from the
hidden state), walks down one tree of everybody's moves keeping to the moves legal in
that world (a move's score is weighed against the iterations in which it was
available: UCB1 with availability counts, Cowling, Powley & Whitehouse 2012), adds a
move, plays on with the game's `policy` (its greedy bot) for at most `horizon` moves,
and scores the end reached with the game's `rewards`: 1 or 0 when the game is over,
an estimate in between when the rollout stopped early. The move played is the root's
most visited.

The budget is a count of iterations, never a time: the same state, seat and random
generator give the same move on any machine (`ludotheque verify` runs bots again and
must find the moves the log holds). Everything random comes from the `rng` given."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message

S = TypeVar("S")
C = TypeVar("C", bound=Message)


@dataclass(frozen=True)
class SearchGame(Generic[S, C]):
    """What the search needs of a game: its rules, whose turn it is, how good an end
    is for each seat, how its greedy bot plays, and the worlds a seat cannot tell apart."""

    legal: Callable[[S, int], list[C]]  # the moves worth trying (a subset of the legal commands)
    decide: Callable[[S, int, C, random.Random], list[Any]]
    evolve: Callable[[S, Any], S]
    to_act: Callable[[S], int | None]  # None once the game is over
    rewards: Callable[[S], Sequence[float]]  # per seat, in [0, 1]: exact once over, else an estimate
    policy: Callable[[S, int, random.Random], C]  # the rollouts' player
    determinise: Callable[[S, int, random.Random], S]  # a world `seat` cannot tell from `state`
    # Whether a choice is worth searching; elsewhere the policy plays (default: every choice).
    worth: Callable[[S, int], bool] = lambda state, seat: True


class _Node:
    """A move in the tree: its statistics for the seat that made it."""

    __slots__ = ("available", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[bytes, _Node] = {}
        self.visits = 0
        self.total = 0.0  # the rewards of the seat that made the move, summed
        self.available = 1  # iterations in which the move was legal when its parent was reached


def _key(command: Message) -> bytes:
    return command.SerializeToString(deterministic=True)


@dataclass(frozen=True)
class SearchBot(Generic[S, C]):
    """A bot that searches `iterations` sampled worlds before each move it has a
    choice in. A Bot (engines/contract.py): called with the full state, it reads it
    only through the game's `determinise` and the seat's own legal moves."""

    game: SearchGame[S, C]
    iterations: int
    horizon: int  # rollout moves before the rollout stops and the end is estimated
    exploration: float = 0.7

    def __call__(self, state: S, seat: int, rng: random.Random) -> C:
        moves = self.game.legal(state, seat)
        if len(moves) == 1:
            return moves[0]
        if not self.game.worth(state, seat):
            return self.game.policy(state, seat, rng)
        keys = [_key(move) for move in moves]
        root = _Node()
        for _ in range(self.iterations):
            self._iterate(root, self.game.determinise(state, seat, rng), seat, keys, moves, rng)
        best = max(
            range(len(moves)),
            key=lambda i: (node.visits, node.total) if (node := root.children.get(keys[i])) else (-1, 0.0),
        )
        return moves[best]

    def _play(self, world: S, seat: int, move: C, rng: random.Random) -> S:
        for event in self.game.decide(world, seat, move, rng):
            world = self.game.evolve(world, event)
        return world

    def _iterate(self, root: _Node, world: S, seat: int, keys: list[bytes], moves: list[C], rng: random.Random) -> None:
        """One iteration in `world`: select, expand, roll out, back up."""
        game, node = self.game, root
        path: list[tuple[_Node, int]] = []
        actor: int | None = seat
        while actor is not None:
            if node is not root:
                moves = game.legal(world, actor)
                keys = [_key(move) for move in moves]
            child, move = self._select(node, keys, moves, rng)
            path.append((child, actor))
            world = self._play(world, actor, move, rng)
            actor = game.to_act(world)
            if child.visits == 0:  # just added: roll out from here
                break
            node = child
        for _ in range(self.horizon):
            if actor is None:
                break
            world = self._play(world, actor, game.policy(world, actor, rng), rng)
            actor = game.to_act(world)
        rewards = game.rewards(world)
        root.visits += 1
        for child, mover in path:
            child.visits += 1
            child.total += rewards[mover]

    def _select(self, node: _Node, keys: list[bytes], moves: list[C], rng: random.Random) -> tuple[_Node, C]:
        """A move not tried yet from `node` (chosen at random), else the best by UCB1
        among those available here."""
        children = node.children
        untried = [i for i, key in enumerate(keys) if key not in children]
        for key in keys:
            child = children.get(key)
            if child is not None:
                child.available += 1
        if untried:
            i = rng.choice(untried)
            child = children[keys[i]] = _Node()
            return child, moves[i]
        scale = self.exploration

        def ucb(i: int) -> float:
            child = children[keys[i]]
            return child.total / child.visits + scale * math.sqrt(math.log(child.available) / child.visits)

        best = max(range(len(keys)), key=ucb)
        return children[keys[best]], moves[best]
