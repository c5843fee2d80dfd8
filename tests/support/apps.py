"""GameApps for the use cases' tests (a server process without its transports, the world
fixed: game ids, seeds, time), and what they are asked: a Mooki game of Cléo and Robin
created, the requests to play in it, every seat's first legal move played, the history."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from typing import Any

from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.game_app import Settings, World
from service.store.base import EventStore
from service.store.memory import MemoryStore

ADMIN = "admin-token-for-the-service-tests-0123456789"
SECRET = b"0123456789abcdef-test-secret-0123456789abcdef"
BOTS = ({"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"})  # two bots' seats


def new_app(
    store: EventStore | None = None,
    seed: int | None = 42,
    *,
    clock: Callable[[], float] | None = None,
    prefix: str | None = "game",
    **settings: Any,
) -> GameApp:
    """A GameApp on `store` (None: a MemoryStore of its own), its admin token ADMIN, its
    Settings `settings`. Its game ids are `prefix`1, `prefix`2... (None: a random prefix,
    so that apps on one store, like server processes, never make the same id); its games
    are dealt from `seed` (None: a random seed each); its time is `clock`'s (None: the
    real time)."""
    ids = itertools.count(1)
    prefix = uuid.uuid4().hex[:8] if prefix is None else prefix
    world: dict[str, Any] = {"new_game_id": lambda: f"{prefix}{next(ids)}"}
    if seed is not None:
        world["new_seed"] = lambda: seed
    if clock is not None:
        world["clock"] = clock
    return GameApp(store or MemoryStore(), TokenAuthority(SECRET, ADMIN), Settings(**settings), world=World(**world))


def create_request(*seats: dict[str, Any], options: mooki.Options | None = None) -> api.CreateGameRequest:
    """A Mooki game of `seats` (SeatSpec fields), Cléo and Robin by default."""
    request = api.CreateGameRequest(
        kind="mooki", seats=[game_pb2.SeatSpec(**s) for s in seats or ({"name": "Cléo"}, {"name": "Robin"})]
    )
    if options is not None:
        request.options.mooki.CopyFrom(options)
    return request


def bots_request(kind: str, count: int, bot: str = "random") -> api.CreateGameRequest:
    """A game of `kind` for `count` bots (`bot` ones) and nobody else."""
    return api.CreateGameRequest(kind=kind, seats=[game_pb2.SeatSpec(name=f"bot {i}", bot=bot) for i in range(count)])


async def create_game(app: GameApp, *seats: dict[str, Any], token: str = "", **fields: Any) -> api.CreateGameResponse:
    """The Mooki game of create_request(*seats), with the request's other `fields` set,
    created by the holder of `token`."""
    request = create_request(*seats)
    for name, value in fields.items():
        setattr(request, name, value)
    return await app.games.create_game(request, token)


def command(inner: mooki.Command) -> game_pb2.Command:
    return game_pb2.Command(mooki=inner)


DRAW_LEFT = command(mooki.Command(draw=mooki.Draw(pile=0)))
PLACE_SHOWN = command(mooki.Command(place=mooki.Place(side=mooki.SIDE_SHOWN)))


def submit(game_id: str, cmd: game_pb2.Command, command_id: str = "", **fields: Any) -> api.SubmitCommandRequest:
    """The request that plays `cmd` in the game (a SubmitCommand's, not its answer)."""
    return api.SubmitCommandRequest(game_id=game_id, command=cmd, command_id=command_id, **fields)


async def play_first_moves(app: GameApp, created: api.CreateGameResponse, moves: int | None = None) -> int:
    """Plays the first legal move of the seat to act, `moves` times (None: until the game
    is over), each under a command id of its own; the game's version after them."""
    tokens = list(created.seat_tokens)
    version = created.game.version
    for _ in itertools.count() if moves is None else range(moves):
        public = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), "")
        if public.status == game_pb2.GAME_STATUS_FINISHED:
            assert moves is None, f"the game ended after {public.version} events, before its {moves} moves"
            break
        token = tokens[public.to_act[0]]
        mine = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), token)
        move = submit(created.game_id, mine.legal_commands[0], uuid.uuid4().hex)
        version = (await app.moves.submit(move, token)).version
    return version


async def events(app: GameApp, game_id: str) -> list[game_pb2.Event]:
    """Every event of the game, as the admin lists them."""
    return list((await app.history.list_events(api.ListEventsRequest(game_id=game_id), ADMIN)).events)
