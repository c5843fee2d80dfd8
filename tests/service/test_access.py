"""Who may create games and how many, who sees which game listed, and seat tokens the
admin rotates: GameApp on the memory store (one store shared by two apps stands for
two server processes), with a clock of the test's own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any

import pytest
from google.rpc import error_details_pb2
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.access.auth import TokenAuthority
from service.app.access.creators import OpenCreation
from service.app.access.limits import NO_LIMITS
from service.app.access.origins import ClientAddresses, Origin, calling_from, current_origin, parse_networks
from service.app.model.errors import Code, retry_after_seconds
from service.store.memory import MemoryStore
from tests.support.aio import async_test
from tests.support.apps import (
    ADMIN,
    BOTS,
    DRAW_LEFT,
    PLACE_SHOWN,
    SECRET,
    create_game,
    create_request,
    new_app,
    play_first_moves,
    submit,
)
from tests.support.clock import Clock
from tests.support.refusals import detail, expect_error

START = 1_000_000.0  # the tests' time, moved by hand


def limited_app(
    store: MemoryStore | None = None, clock: Clock | None = None, prefix: str = "game", **limits: Any
) -> GameApp:
    """An app whose creators are held to `limits`, in the test's time."""
    return new_app(store, clock=clock or Clock(START), prefix=prefix, limits=replace(NO_LIMITS, **limits))


# --- creation limits -----------------------------------------------------------------


@async_test
async def test_a_creator_past_the_rate_is_told_when_to_come_back_and_the_window_slides() -> None:
    clock = Clock(START)
    app = limited_app(clock=clock, per_minute=2)
    await create_game(app)
    clock.now += 20
    await create_game(app)
    clock.now += 10
    refused = await expect_error(Code.RESOURCE_EXHAUSTED, create_game(app))
    assert retry_after_seconds(refused.details) == 30  # the first creation leaves the window at 60 s
    assert detail(refused, error_details_pb2.ErrorInfo).reason == "CREATE_RATE"
    assert detail(refused, error_details_pb2.QuotaFailure).violations[0].subject == "create:ip:unknown"
    assert len((await app.games.list_games(api.ListGamesRequest(), ADMIN)).games) == 2  # nothing created
    with calling_from(Origin("203.0.113.9")):
        await create_game(app)  # another address, another creator
    clock.now += 30
    await create_game(app)
    await create_game(app, token=ADMIN)  # the admin is never limited
    for _ in range(3):
        await create_game(app, token=ADMIN)


@async_test
async def test_live_games_count_until_they_finish_and_a_missed_release_heals_itself() -> None:
    store = MemoryStore()
    app = limited_app(store, live_games=2)
    first = await create_game(app)
    await create_game(app)
    refused = await expect_error(Code.RESOURCE_EXHAUSTED, create_game(app))
    assert detail(refused, error_details_pb2.ErrorInfo).reason == "LIVE_GAMES_QUOTA"
    assert retry_after_seconds(refused.details) == 60
    # A game that ends frees its place at once (here: Cléo's every move until the end).
    await play_first_moves(app, first)
    await create_game(app)
    assert await store.members("live:ip:unknown", 0) == ["game2", "game4"]
    # A place whose game vanished (expired, or its release lost with a process) heals.
    await store.release("live:ip:unknown", "game4")
    assert (await store.admit("live:ip:unknown", "gone", 2, 0)).admitted
    await create_game(app)
    assert await store.members("live:ip:unknown", 0) == ["game2", "game5"]


@async_test
async def test_games_of_bots_only_are_for_the_admin_or_behind_their_own_rate() -> None:
    admin_only = limited_app(per_minute=100, bot_games_per_minute=0)
    await expect_error(Code.PERMISSION_DENIED, create_game(admin_only, *BOTS))
    assert (await create_game(admin_only, *BOTS, token=ADMIN)).game.status == game_pb2.GAME_STATUS_FINISHED
    app = limited_app(per_minute=100, live_games=1, bot_games_per_minute=1)
    await create_game(app, *BOTS)  # finished at once: it holds no live place
    refused = await expect_error(Code.RESOURCE_EXHAUSTED, create_game(app, *BOTS))
    assert detail(refused, error_details_pb2.ErrorInfo).reason == "BOT_GAMES_RATE"
    await create_game(app)  # the ordinary rate is another one


@async_test
async def test_a_host_who_starts_a_game_nobody_joined_makes_a_game_of_bots_only() -> None:
    """Open seats then StartGame with nobody seated would be a way round the bots-only
    limit: the start counts as such a creation, for the game's creator."""
    nobody = ({"open": True}, {"open": True})
    admin_only = limited_app(per_minute=100, bot_games_per_minute=0)
    waiting = await create_game(admin_only, *nobody)
    start = api.StartGameRequest(game_id=waiting.game_id)
    await expect_error(Code.PERMISSION_DENIED, admin_only.seating.start_game(start, waiting.host_token))
    assert (await admin_only.games.get_game(api.GetGameRequest(game_id=waiting.game_id), "")).version == 0  # nothing
    assert (await admin_only.seating.start_game(start, ADMIN)).game.status == game_pb2.GAME_STATUS_FINISHED
    seated = await create_game(admin_only, {"name": "Cléo"}, {"open": True})  # a player: the bots play with her
    await admin_only.seating.start_game(api.StartGameRequest(game_id=seated.game_id), seated.host_token)
    app = limited_app(per_minute=100, bot_games_per_minute=1)
    first, second = await create_game(app, *nobody), await create_game(app, *nobody)
    await app.seating.start_game(api.StartGameRequest(game_id=first.game_id), first.host_token)
    refused = await expect_error(
        Code.RESOURCE_EXHAUSTED, app.seating.start_game(api.StartGameRequest(game_id=second.game_id), second.host_token)
    )
    assert detail(refused, error_details_pb2.ErrorInfo).reason == "BOT_GAMES_RATE"


@async_test
async def test_a_malformed_creation_counts_against_nothing() -> None:
    app = limited_app(per_minute=1, live_games=1)
    for _ in range(3):
        await expect_error(Code.INVALID_ARGUMENT, app.games.create_game(api.CreateGameRequest(kind="chess"), ""))
    await create_game(app)


# --- who creates ---------------------------------------------------------------------


def test_a_client_is_the_first_address_no_trusted_proxy_vouches_for() -> None:
    addresses = ClientAddresses(parse_networks("10.0.0.0/8, 192.0.2.1"))
    # Behind two trusted proxies: the address the outer one saw.
    assert addresses.identity(Origin("10.1.1.1", ("198.51.100.7", "192.0.2.1"))) == "ip:198.51.100.7"
    # What the client wrote itself, left of that, is not believed.
    assert addresses.identity(Origin("10.1.1.1", ("6.6.6.6", "198.51.100.7"))) == "ip:198.51.100.7"
    # From an untrusted peer, X-Forwarded-For is ignored.
    assert addresses.identity(Origin("198.51.100.8", ("6.6.6.6",))) == "ip:198.51.100.8"
    assert ClientAddresses().identity(Origin("10.1.1.1", ("6.6.6.6",))) == "ip:10.1.1.1"
    # IPv6 clients by their /64; IPv4 written as IPv6 as IPv4; garbage as unknown.
    assert addresses.identity(Origin("2001:db8:1:2:3:4:5:6")) == "ip:2001:db8:1:2::/64"
    assert addresses.identity(Origin("::ffff:198.51.100.9")) == "ip:198.51.100.9"
    assert addresses.identity(Origin("10.1.1.1", ("[2001:db8::1]:443",))) == "ip:2001:db8::/64"
    assert addresses.identity(Origin("10.1.1.1", ("198.51.100.7:5000",))) == "ip:198.51.100.7"
    assert addresses.identity(Origin("10.1.1.1", ("²",))) == "ip:unknown"
    with pytest.raises(ValueError):
        parse_networks("10.0.0.0/33")


@async_test
async def test_the_creator_is_recorded_on_the_game_and_only_the_admin_sees_it() -> None:
    app = GameApp(
        MemoryStore(),
        TokenAuthority(SECRET, ADMIN),
        creation=OpenCreation(ClientAddresses(parse_networks("127.0.0.1"))),
    )
    with calling_from(Origin("127.0.0.1", ("198.51.100.7",))):
        created = await app.games.create_game(create_request(), "")
    assert created.game.created_by == ""  # the creator does not see it either
    game_id = created.game_id
    assert (await app.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)).created_by == "ip:198.51.100.7"
    assert (await app.games.get_game(api.GetGameRequest(game_id=game_id), "")).created_by == ""
    assert (await app.games.get_game(api.GetGameRequest(game_id=game_id), created.seat_tokens[0])).created_by == ""
    listed = await app.games.list_games(api.ListGamesRequest(), ADMIN)
    assert [g.created_by for g in listed.games] == ["ip:198.51.100.7"]
    assert (await app.games.create_game(create_request(), ADMIN)).game.created_by == "admin"


# --- privacy ---------------------------------------------------------------------------


@async_test
async def test_games_are_unlisted_unless_asked_and_only_public_ones_show_names_to_everyone() -> None:
    app = limited_app()
    seats = ({"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"})
    unlisted = await create_game(app, *seats)
    listed = await create_game(app, *seats, visibility=game_pb2.VISIBILITY_LISTED)
    public = await create_game(app, *seats, visibility=game_pb2.VISIBILITY_PUBLIC)
    finished = await create_game(app, *BOTS, visibility=game_pb2.VISIBILITY_LISTED)
    assert unlisted.game.visibility == game_pb2.VISIBILITY_UNLISTED
    for token in ("", unlisted.seat_tokens[0]):  # a seat token means nothing outside its game
        everyone = (await app.games.list_games(api.ListGamesRequest(), token)).games
        assert [g.game_id for g in everyone] == [finished.game_id, public.game_id, listed.game_id]
        shown = {g.game_id: g for g in everyone}
        assert [(s.name, s.HasField("age"), s.bot) for s in shown[listed.game_id].seats] == [
            ("", False, ""),
            ("", False, "greedy"),
        ]
        assert shown[finished.game_id].outcome.summary == ""  # it names the winner
        assert shown[finished.game_id].outcome.winners == finished.game.outcome.winners
        assert (shown[public.game_id].seats[0].name, shown[public.game_id].seats[0].age) == ("Cléo", 6)
    admin = (await app.games.list_games(api.ListGamesRequest(), ADMIN)).games
    assert len(admin) == 4 and admin[-1].seats[0].name == "Cléo" and admin[0].outcome.summary
    # Whoever has the id still watches the game (the id is the invitation).
    assert (await app.games.get_game(api.GetGameRequest(game_id=unlisted.game_id), "")).seats[0].name == "Cléo"
    await expect_error(Code.INVALID_ARGUMENT, create_game(app, visibility=7))


# --- rotating a seat's token -----------------------------------------------------------


@async_test
async def test_a_rotated_seat_token_stops_working_at_once_on_every_process() -> None:
    store = MemoryStore()
    here, there = limited_app(store), limited_app(store)
    created = await create_game(here)
    game_id, (cleo, robin) = created.game_id, created.seat_tokens
    # The other process has the game cached and Cléo's token checked.
    assert (await there.games.get_game(api.GetGameRequest(game_id=game_id), cleo)).viewer.seat == 0
    rotated = await here.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id=game_id, seat=0), ADMIN)
    new = rotated.seat_token
    assert new != cleo and new.startswith("0.1.")
    for app in (here, there):
        refused = await expect_error(
            Code.UNAUTHENTICATED, app.games.get_game(api.GetGameRequest(game_id=game_id), cleo)
        )
        assert "replaced" in refused.message
        await expect_error(Code.UNAUTHENTICATED, app.history.list_events(api.ListEventsRequest(game_id=game_id), cleo))
    await expect_error(Code.UNAUTHENTICATED, there.moves.submit(submit(game_id, DRAW_LEFT, "old"), cleo))
    assert (await there.games.get_game(api.GetGameRequest(game_id=game_id), ADMIN)).version == 1  # nothing played
    assert (await there.moves.submit(submit(game_id, DRAW_LEFT, "new"), new)).version == 2
    assert (await here.games.get_game(api.GetGameRequest(game_id=game_id), robin)).viewer.seat == 1  # others unchanged
    again = await here.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id=game_id, seat=0), ADMIN)
    await expect_error(Code.UNAUTHENTICATED, there.moves.submit(submit(game_id, PLACE_SHOWN, "p"), new))
    assert (await there.moves.submit(submit(game_id, PLACE_SHOWN, "p"), again.seat_token)).version == 3


@async_test
async def test_a_move_cached_before_the_rotation_is_refused_by_the_append() -> None:
    store = MemoryStore()
    here, there = limited_app(store), limited_app(store)
    created = await create_game(here)
    game_id, cleo = created.game_id, created.seat_tokens[0]
    await there.games.get_game(api.GetGameRequest(game_id=game_id), cleo)  # cached there, token checked
    await here.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id=game_id, seat=0), ADMIN)
    # `there` decides on its cache without reading the game: its append is refused, and
    # then the token is found rotated.
    await expect_error(Code.UNAUTHENTICATED, there.moves.submit(submit(game_id, DRAW_LEFT, "late"), cleo))
    assert (await store.info(game_id)).version == 1


@async_test
async def test_only_the_admin_rotates_and_only_existing_seats() -> None:
    app = limited_app()
    created = await create_game(app)
    request = api.RotateSeatTokenRequest(game_id=created.game_id, seat=0)
    await expect_error(Code.UNAUTHENTICATED, app.seats.rotate_seat_token(request, ""))
    await expect_error(Code.PERMISSION_DENIED, app.seats.rotate_seat_token(request, created.seat_tokens[0]))
    await expect_error(
        Code.INVALID_ARGUMENT,
        app.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id=created.game_id, seat=2), ADMIN),
    )
    await expect_error(
        Code.NOT_FOUND, app.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id="nope", seat=0), ADMIN)
    )


@async_test
async def test_an_open_stream_of_a_rotated_token_ends_at_its_next_event() -> None:
    app = limited_app()
    created = await create_game(app)
    game_id, (cleo, robin) = created.game_id, created.seat_tokens
    stream = (await app.history.stream_events(api.StreamEventsRequest(game_id=game_id), robin)).events
    assert (await anext(stream)).version == 1
    await app.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id=game_id, seat=1), ADMIN)
    await app.moves.submit(submit(game_id, DRAW_LEFT), cleo)
    with pytest.raises(Exception) as ended:
        await anext(stream)
    assert getattr(ended.value, "code", None) is Code.UNAUTHENTICATED


# --- secrets ---------------------------------------------------------------------------


@async_test
async def test_during_a_secret_rotation_tokens_of_both_secrets_work_and_new_ones_use_the_new() -> None:
    store = MemoryStore()
    old_secret, new_secret = SECRET, b"the-next-secret-0123456789abcdef-0123"
    before = GameApp(store, TokenAuthority(old_secret, ADMIN))
    created = await before.games.create_game(create_request(), "")
    during = GameApp(store, TokenAuthority(new_secret, ADMIN, previous_secrets=[old_secret]))
    assert (
        await during.games.get_game(api.GetGameRequest(game_id=created.game_id), created.seat_tokens[0])
    ).viewer.seat == 0
    fresh = await during.games.create_game(create_request(), "")
    after = GameApp(store, TokenAuthority(new_secret, ADMIN))
    assert (
        await after.games.get_game(api.GetGameRequest(game_id=fresh.game_id), fresh.seat_tokens[1])
    ).viewer.seat == 1
    await expect_error(
        Code.UNAUTHENTICATED, after.games.get_game(api.GetGameRequest(game_id=created.game_id), created.seat_tokens[0])
    )


def test_secrets_and_admin_tokens_shorter_than_32_bytes_are_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        TokenAuthority(b"x" * 31)
    with pytest.raises(ValueError, match="32 bytes"):
        TokenAuthority(SECRET, "short-admin-token")
    with pytest.raises(ValueError, match="32 bytes"):
        TokenAuthority(SECRET, previous_secrets=[b"old"])
    TokenAuthority(b"x" * 32, "y" * 32)


@pytest.mark.parametrize("token", ["².x", "0.²", "0.0.mac", "1.-1.mac", "0.1.2.mac", "99999.mac", "", "0."])
def test_malformed_seat_tokens_are_unauthenticated(token: str) -> None:
    from service.app.access.auth import BadToken

    with pytest.raises(BadToken):
        TokenAuthority(SECRET).seat_claim("game", token)


@async_test
async def test_a_stream_closed_from_another_context_leaves_its_origin_without_an_error() -> None:
    """grpc closes an abandoned stream's generator (aclose) from a task of its own, whose
    context is not the one the generator set the origin in: that must end it cleanly (it
    used to raise ValueError there, which made every never-read gRPC stream an INTERNAL
    and an ERROR in the log: the attack bench's `gRPC StreamEvents never read`)."""

    async def stream() -> AsyncGenerator[str, None]:
        with calling_from(Origin("203.0.113.9")):
            yield current_origin().peer
            yield "never reached"

    events = stream()

    async def first() -> str:
        return await anext(events)

    assert await asyncio.create_task(first()) == "203.0.113.9"  # (a task: a context of its own)
    await asyncio.create_task(events.aclose())  # another task, another context
    assert current_origin() == Origin()
