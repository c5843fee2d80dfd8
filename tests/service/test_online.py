"""Playing online, the use cases on the memory store with a clock the test moves: open
seats and joining, leaving, starting with bots, rematches, bots taking seats over and
handing them back, turn clocks, presence; and every such game's log replays exactly."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.pirates.v1 import pirates_pb2 as pirates
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app import GameApp
from service.app.logs.verify import Replayed, verify
from service.app.model.errors import Code, ServiceError
from service.app.online.join_codes import ALPHABET, LENGTH
from service.store.memory import MemoryStore
from tests.support.aio import async_test
from tests.support.apps import ADMIN, events, new_app
from tests.support.clock import Clock
from tests.support.refusals import expect_error

START = 1_800_000_000.0


def online_app(clock: Clock | None = None, *, store: MemoryStore | None = None, prefix: str = "game") -> GameApp:
    """An app on its own store, or on `store` (two apps on one store: two processes), in
    the test's time (`clock`, or one of its own)."""
    return new_app(store, 7, clock=clock or Clock(START), prefix=prefix)


def seat(**fields: Any) -> game_pb2.SeatSpec:
    return game_pb2.SeatSpec(**fields)


async def create(
    app: GameApp,
    kind: str,
    *seats: game_pb2.SeatSpec,
    clock: game_pb2.TurnClock | None = None,
    visibility: game_pb2.Visibility.ValueType = game_pb2.VISIBILITY_UNSPECIFIED,
) -> api.CreateGameResponse:
    request = api.CreateGameRequest(kind=kind, seats=seats, clock=clock, visibility=visibility)
    return await app.games.create_game(request, "")


async def replays_exactly(app: GameApp, game_id: str) -> None:
    """The complete log verifies event by event, table events and clocks included."""
    log = (await app.logs.export_game(api.ExportGameRequest(game_id=game_id), ADMIN)).log
    assert isinstance(verify(log), Replayed), verify(log)


def changes(log: list[game_pb2.Event]) -> list[str]:
    return [str(e.table.WhichOneof("change")) for e in log if e.HasField("table")]


# --- open seats ---------------------------------------------------------------------


@async_test
async def test_a_game_with_an_open_seat_waits_then_is_dealt_when_a_player_joins_by_its_code() -> None:
    app = online_app()
    unlisted = await create(app, "mooki", seat(name="Lou", age=5), seat(open=True))  # found by its code only
    listing = game_pb2.VISIBILITY_LISTED  # players looking for a game find it (ListGames)
    created = await create(app, "mooki", seat(name="Cléo", age=6), seat(open=True), visibility=listing)
    game = created.game
    assert game.status == game_pb2.GAME_STATUS_OPEN and game.version == 0 and not game.to_act
    assert created.seat_tokens[1] == "" and created.host_token and created.seat_tokens[0]
    code = game.join_code
    assert len(code) == LENGTH and set(code) <= set(ALPHABET)
    assert game.seats[1].open and not game.HasField("view")
    listed = await app.games.list_games(api.ListGamesRequest(status=game_pb2.GAME_STATUS_OPEN), "")
    assert [g.join_code for g in listed.games] == [code]
    assert not listed.games[0].seats[0].name  # listed, not public: without the players' names
    every = await app.games.list_games(api.ListGamesRequest(status=game_pb2.GAME_STATUS_OPEN), ADMIN)
    assert {g.join_code for g in every.games} == {code, unlisted.game.join_code}
    move = api.SubmitCommandRequest(
        game_id=created.game_id, command=game_pb2.Command(mooki=mooki.Command(draw=mooki.Draw(pile=0)))
    )
    await expect_error(Code.FAILED_PRECONDITION, app.moves.submit(move, created.seat_tokens[0]), "GAME_NOT_STARTED")

    spoken = f"{code[:3].lower()}-{code[3:]}"  # as read aloud and typed: any case, a dash
    joined = await app.seating.join_game(api.JoinGameRequest(game_id=spoken, name="Robin", age=4), "")
    assert (joined.game_id, joined.seat) == (created.game_id, 1)
    dealt = joined.game
    assert dealt.status == game_pb2.GAME_STATUS_ACTIVE and dealt.version > 0 and not dealt.join_code
    assert (dealt.seats[1].name, dealt.seats[1].age, dealt.seats[1].open) == ("Robin", 4, False)
    assert dealt.options.mooki.youngest_seat == 1  # the deal waited for the players: the youngest starts
    assert dealt.to_act == [1] and dealt.legal_commands  # as the new seat sees it
    assert changes(await events(app, created.game_id)) == ["joined"]
    await replays_exactly(app, created.game_id)


@async_test
async def test_joining_a_full_or_finished_game_or_twice_is_refused_and_changes_nothing() -> None:
    app = online_app()
    created = await create(app, "pirates", seat(name="Ana"), seat(open=True), seat(open=True))
    game_id = created.game_id
    first = await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Ben"), "")
    before = await events(app, game_id)
    await expect_error(
        Code.ALREADY_EXISTS, app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="B"), first.seat_token)
    )
    await expect_error(
        Code.FAILED_PRECONDITION, app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="C", seat=1), "")
    )
    await expect_error(Code.INVALID_ARGUMENT, app.seating.join_game(api.JoinGameRequest(game_id=game_id, name=" "), ""))
    await expect_error(
        Code.INVALID_ARGUMENT, app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="D", seat=7), "")
    )
    bad_bot = api.JoinGameRequest(game_id=game_id, name="E", stand_in="genius")
    await expect_error(Code.INVALID_ARGUMENT, app.seating.join_game(bad_bot, ""))
    await expect_error(Code.NOT_FOUND, app.seating.join_game(api.JoinGameRequest(game_id="ZZZZ-ZZ", name="F"), ""))
    await expect_error(
        Code.UNAUTHENTICATED, app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="G"), "0.forged")
    )
    assert await events(app, game_id) == before
    await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Chloé"), "")
    await expect_error(
        Code.FAILED_PRECONDITION, app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="H"), ""), "GAME_FULL"
    )
    finished = await create(app, "mooki", seat(name="Bot", bot="random"), seat(name="Bot 2", bot="random"))
    await expect_error(
        Code.FAILED_PRECONDITION,
        app.seating.join_game(api.JoinGameRequest(game_id=finished.game_id, name="I"), ""),
        "GAME_OVER",
    )


@async_test
async def test_racing_joiners_get_one_seat_each() -> None:
    app = online_app()
    created = await create(app, "pirates", *(seat(open=True) for _ in range(4)))
    outcomes = await asyncio.gather(
        *(app.seating.join_game(api.JoinGameRequest(game_id=created.game_id, name=f"P{i}"), "") for i in range(7)),
        return_exceptions=True,
    )
    joined = {f"P{i}": o for i, o in enumerate(outcomes) if isinstance(o, api.JoinGameResponse)}
    assert sorted(o.seat for o in joined.values()) == [0, 1, 2, 3]
    refusals = [o for o in outcomes if isinstance(o, ServiceError)]
    assert len(refusals) == 3 and all(o.code is Code.FAILED_PRECONDITION for o in refusals)
    game = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), "")
    assert game.status == game_pb2.GAME_STATUS_ACTIVE
    assert {game.seats[o.seat].name: name for name, o in joined.items()} == {name: name for name in joined}


@async_test
async def test_a_player_who_leaves_before_the_start_frees_the_seat_and_loses_their_token() -> None:
    app = online_app()
    created = await create(app, "pirates", seat(name="Ana"), seat(open=True, name="for Ben"), seat(open=True))
    game_id = created.game_id
    ben = await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Ben", seat=1), "")
    left = await app.seating.leave_game(api.LeaveGameRequest(game_id=game_id), ben.seat_token)
    assert left.game.seats[1].open and left.game.seats[1].name == "for Ben"
    await expect_error(Code.UNAUTHENTICATED, app.games.get_game(api.GetGameRequest(game_id=game_id), ben.seat_token))
    chloe = await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Chloé", seat=1), "")
    assert chloe.seat_token != ben.seat_token  # the seat's next player gets a token of their own
    await expect_error(
        Code.UNAUTHENTICATED, app.seating.leave_game(api.LeaveGameRequest(game_id=game_id), ben.seat_token)
    )
    await expect_error(Code.UNAUTHENTICATED, app.seating.leave_game(api.LeaveGameRequest(game_id=game_id), ""))
    await app.seating.leave_game(
        api.LeaveGameRequest(game_id=game_id), created.seat_tokens[0]
    )  # the creator's seat too
    await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Dan"), "")
    await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Eve"), "")  # the last: dealt
    await expect_error(
        Code.FAILED_PRECONDITION,
        app.seating.leave_game(api.LeaveGameRequest(game_id=game_id), chloe.seat_token),
        "GAME_STARTED",
    )
    assert changes(await events(app, game_id)) == ["joined", "left", "joined", "left", "joined", "joined"]
    await replays_exactly(app, game_id)


@async_test
async def test_the_host_starts_the_game_with_bots_in_the_empty_seats() -> None:
    app = online_app()
    created = await create(app, "pirates", seat(name="Ana"), seat(open=True), seat(open=True))
    request = api.StartGameRequest(game_id=created.game_id, bot="random")
    await expect_error(Code.UNAUTHENTICATED, app.seating.start_game(request, ""))
    await expect_error(Code.PERMISSION_DENIED, app.seating.start_game(request, created.seat_tokens[0]))
    await expect_error(
        Code.INVALID_ARGUMENT, app.seating.start_game(api.StartGameRequest(game_id=created.game_id, bot="x"), ADMIN)
    )
    assert await events(app, created.game_id) == []
    started = (await app.seating.start_game(request, created.host_token)).game
    assert started.status != game_pb2.GAME_STATUS_OPEN
    assert [(s.name, s.bot) for s in started.seats] == [
        ("Ana", ""),
        ("Random bot 1", "random"),
        ("Random bot 2", "random"),
    ]
    await expect_error(Code.FAILED_PRECONDITION, app.seating.start_game(request, created.host_token), "GAME_FULL")
    await replays_exactly(app, created.game_id)


# --- a seat's token generation: joins and the admin's rotations ------------------------


def submit_first_legal(game_id: str, game: game_pb2.Game, command_id: str) -> api.SubmitCommandRequest:
    return api.SubmitCommandRequest(game_id=game_id, command=game.legal_commands[0], command_id=command_id)


@async_test
async def test_a_joined_seat_rotated_later_takes_the_new_token_on_every_process() -> None:
    store = MemoryStore()
    here, there = online_app(store=store), online_app(store=store, prefix="other")
    created = await create(here, "mooki", seat(name="Cléo", age=6), seat(open=True))
    game_id = created.game_id
    robin = await there.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Robin", age=4), "")
    assert robin.seat_token.startswith("1.1.")  # the seat's first player: generation 1
    seen = await here.games.get_game(
        api.GetGameRequest(game_id=game_id), robin.seat_token
    )  # cached here, token checked
    assert seen.viewer.seat == 1 and seen.to_act == [1]
    rotated = (
        await there.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id=game_id, seat=1), ADMIN)
    ).seat_token
    assert rotated.startswith("1.2.")  # one join and one rotation
    # `here` decides on its cache without reading the game: the append finds the
    # rotation out, and the joiner's token is refused; nothing is played.
    stale = submit_first_legal(game_id, seen, "stale")
    await expect_error(Code.UNAUTHENTICATED, here.moves.submit(stale, robin.seat_token))
    await expect_error(Code.UNAUTHENTICATED, here.games.get_game(api.GetGameRequest(game_id=game_id), robin.seat_token))
    assert (await store.info(game_id)).version == seen.version
    fresh = submit_first_legal(game_id, seen, "fresh")
    assert (await here.moves.submit(fresh, rotated)).version > seen.version  # the new token plays, on both
    assert (await there.games.get_game(api.GetGameRequest(game_id=game_id), rotated)).viewer.seat == 1
    cleo = (await here.seats.rotate_seat_token(api.RotateSeatTokenRequest(game_id=game_id, seat=0), ADMIN)).seat_token
    assert cleo.startswith("0.1.")  # a seat nobody joined: its rotations only
    await expect_error(
        Code.UNAUTHENTICATED, there.games.get_game(api.GetGameRequest(game_id=game_id), created.seat_tokens[0])
    )
    await replays_exactly(here, game_id)  # a rotation is no event


@async_test
async def test_joins_and_rotations_both_move_a_seats_generation_on() -> None:
    app = online_app()
    created = await create(app, "pirates", seat(name="Ana"), seat(open=True), seat(open=True))
    game_id = created.game_id

    async def rotate(seat_index: int) -> str:
        request = api.RotateSeatTokenRequest(game_id=game_id, seat=seat_index)
        return (await app.seats.rotate_seat_token(request, ADMIN)).seat_token

    ben = await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Ben", seat=1), "")
    ben_again = await rotate(1)  # a leaked link: Ben gets a new token before the game starts
    await expect_error(Code.UNAUTHENTICATED, app.games.get_game(api.GetGameRequest(game_id=game_id), ben.seat_token))
    await app.seating.leave_game(api.LeaveGameRequest(game_id=game_id), ben_again)
    await expect_error(Code.FAILED_PRECONDITION, rotate(1), "SEAT_OPEN")  # nobody holds a token of it
    chloe = await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Chloé", seat=1), "")
    assert chloe.seat_token.startswith("1.3.")  # two joins, one rotation: never a past generation again
    for old in (ben.seat_token, ben_again):
        await expect_error(Code.UNAUTHENTICATED, app.games.get_game(api.GetGameRequest(game_id=game_id), old))
    assert (await app.games.get_game(api.GetGameRequest(game_id=game_id), chloe.seat_token)).viewer.seat == 1
    await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Dan"), "")  # the last seat: dealt
    exported = (await app.logs.export_game(api.ExportGameRequest(game_id=game_id), ADMIN)).log
    imported = await app.logs.import_game(api.ImportGameRequest(log=exported), ADMIN)
    assert [token.split(".")[1] for token in imported.seat_tokens[1:]] == ["2", "1"]  # its joins, not the rotation
    copy = api.GetGameRequest(game_id=imported.game_id)
    assert (await app.games.get_game(copy, imported.seat_tokens[1])).viewer.seat == 1


# --- descriptions of table events ------------------------------------------------------


@async_test
async def test_table_events_are_described_for_everyone_in_their_language() -> None:
    app = online_app()
    created = await create(app, "pirates", seat(name="Ana"), seat(open=True), seat(open=True))
    game_id = created.game_id
    ben = await app.seating.join_game(api.JoinGameRequest(game_id=game_id, name="Ben"), "")
    await app.seating.leave_game(api.LeaveGameRequest(game_id=game_id), ben.seat_token)
    await app.seating.start_game(api.StartGameRequest(game_id=game_id, bot="random"), created.host_token)
    await app.takeovers.take_over(api.TakeOverSeatRequest(game_id=game_id), created.seat_tokens[0])
    request = api.ListEventsRequest(game_id=game_id, locale="fr")
    for token in ("", created.seat_tokens[0], ADMIN):  # a table event is the same for every viewer
        told = [e for e in (await app.history.list_events(request, token)).events if e.HasField("table")]
        assert [e.description.key for e in told[:5]] == [
            "table.joined",
            "table.left",
            "table.bot_joined",
            "table.bot_joined",
            "table.taken_over",
        ]
        assert told[0].description.text == "Ben rejoint la partie."
        assert told[1].description.text == "Ben quitte la partie : la place est de nouveau libre."
        assert told[4].description.text == "Désormais, un robot joue pour Ana."
        assert told[0].description.args["seat"].value == "1"
    english = (await app.history.list_events(api.ListEventsRequest(game_id=game_id), "")).events
    assert english[1].description.text == "Ben leaves the game: the seat is free again."
    refusal = await expect_error(
        Code.FAILED_PRECONDITION, app.seating.start_game(api.StartGameRequest(game_id=game_id), ADMIN)
    )
    assert refusal.key == "table.refusal.game_over"  # every seat a bot now: played out at once


# --- rematches, take-overs ------------------------------------------------------------


@async_test
async def test_a_bot_takes_a_seat_over_plays_its_turns_and_hands_it_back() -> None:
    app = online_app()
    created = await create(app, "pirates", seat(name="Ana", stand_in="random"), seat(name="Ben"))
    game_id, ana = created.game_id, created.seat_tokens[0]
    take = api.TakeOverSeatRequest(game_id=game_id)
    await expect_error(
        Code.PERMISSION_DENIED, app.takeovers.take_over(api.TakeOverSeatRequest(game_id=game_id, seat=1), ana)
    )
    await expect_error(Code.INVALID_ARGUMENT, app.takeovers.take_over(take, ADMIN))  # which seat?
    game = (await app.takeovers.take_over(take, ana)).game
    assert game.seats[0].taken_over_by == "random" and 0 not in game.to_act  # the bot played at once
    move = api.SubmitCommandRequest(
        game_id=game_id, command=game_pb2.Command(pirates=pirates.Command(draw=pirates.Draw()))
    )
    await expect_error(Code.FAILED_PRECONDITION, app.moves.submit(move, ana), "SEAT_TAKEN_OVER")
    again = (await app.takeovers.take_over(take, ana)).game  # already so: nothing changes
    assert again.version == game.version
    back = (await app.takeovers.hand_back(api.HandBackSeatRequest(game_id=game_id), ana)).game
    assert back.seats[0].taken_over_by == ""
    assert changes(await events(app, game_id)) == ["taken_over", "handed_back"]
    await replays_exactly(app, game_id)


@async_test
async def test_play_again_deals_one_rematch_with_the_same_seats_and_new_tokens() -> None:
    app = online_app()
    created = await create(app, "mooki", seat(open=True), seat(name="Bot", bot="greedy"))
    cleo = await app.seating.join_game(api.JoinGameRequest(game_id=created.game_id, name="Cléo", age=6), "")
    request = api.PlayAgainRequest(game_id=created.game_id)
    await expect_error(Code.FAILED_PRECONDITION, app.seating.play_again(request, cleo.seat_token), "GAME_NOT_OVER")
    await app.takeovers.take_over(api.TakeOverSeatRequest(game_id=created.game_id), cleo.seat_token)  # plays it out
    over = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), "")
    assert over.status == game_pb2.GAME_STATUS_FINISHED and not over.rematch_game_id
    await expect_error(Code.UNAUTHENTICATED, app.seating.play_again(request, ""))
    first = await app.seating.play_again(request, cleo.seat_token)
    second = await app.seating.play_again(request, cleo.seat_token)
    admin = await app.seating.play_again(request, ADMIN)
    assert first.game_id == second.game_id == admin.game_id != created.game_id
    assert first.seat == 0 and first.seat_token == second.seat_token == admin.seat_tokens[0]
    rematch = first.game
    assert [(s.name, s.age, s.bot, s.open) for s in rematch.seats] == [
        ("Cléo", 6, "", False),
        ("Bot", 0, "greedy", False),
    ]
    assert rematch.status == game_pb2.GAME_STATUS_ACTIVE and rematch.viewer.seat == 0
    assert (await app.games.get_game(api.GetGameRequest(game_id=created.game_id), "")).rematch_game_id == first.game_id


# --- turn clocks ------------------------------------------------------------------------


CLOCK = game_pb2.TurnClock(turn_seconds=10, bank_seconds=5, take_over_after=2)


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        (game_pb2.TurnClock(turn_seconds=86_401), "clock.turn_seconds"),
        (game_pb2.TurnClock(bank_seconds=604_801), "clock.bank_seconds"),
        (game_pb2.TurnClock(), "clock"),
        (game_pb2.TurnClock(turn_seconds=5, take_over_after=101), "clock.take_over_after"),
    ],
)
@async_test
async def test_a_clock_out_of_range_is_refused_and_creates_nothing(clock: game_pb2.TurnClock, field: str) -> None:
    app = online_app()
    error = await expect_error(Code.INVALID_ARGUMENT, create(app, "mooki", seat(name="A"), seat(name="B"), clock=clock))
    assert field in str(error.details)
    assert not (await app.games.list_games(api.ListGamesRequest(), ADMIN)).games


@async_test
async def test_when_a_seats_time_runs_out_its_stand_in_plays_and_after_missed_turns_takes_the_seat_over() -> None:
    clock = Clock(START)
    app = online_app(clock)
    created = await create(app, "mooki", seat(name="Cléo", age=6), seat(name="Robin", age=4), clock=CLOCK)
    game_id = created.game_id
    game = await app.games.get_game(api.GetGameRequest(game_id=game_id), "")
    robin = game.seats[1].clock  # the youngest starts
    assert (robin.deadline.ToMilliseconds(), robin.remaining.seconds, robin.bank.seconds) == (
        START * 1000 + 15_000,
        15,
        5,
    )
    assert not game.seats[0].clock.HasField("deadline")
    clock.now += 14.999
    assert await app.clocks.fire_due() == 0  # not yet
    clock.now += 0.001
    assert await app.clocks.fire_due() == 1
    assert await app.clocks.fire_due() == 0  # once
    log = await events(app, game_id)
    assert changes(log) == ["timed_out"]
    timed_out = next(e for e in log if e.HasField("table"))
    after = [e for e in log if e.version > timed_out.version]
    assert after and all(e.seat == 1 and e.command_id == f"timeout-{timed_out.version - 1}" for e in after)
    game = await app.games.get_game(api.GetGameRequest(game_id=game_id), "")
    assert game.to_act == [0] and game.seats[1].clock.missed_turns == 1 and game.seats[1].clock.bank.seconds == 0
    for _ in range(2):  # Cléo is timed out too, then Robin again: twice in a row, so a bot takes the seat over
        clock.now += 15
        await app.clocks.fire_due()
    game = await app.games.get_game(api.GetGameRequest(game_id=game_id), "")
    assert game.seats[1].taken_over_by == "greedy"
    assert changes(await events(app, game_id)) == ["timed_out", "timed_out", "timed_out", "taken_over"]
    await replays_exactly(app, game_id)
    exported = (await app.logs.export_game(api.ExportGameRequest(game_id=game_id), ADMIN)).log
    imported = (await app.logs.import_game(api.ImportGameRequest(log=exported), ADMIN)).game
    assert imported.seats[1].taken_over_by == "greedy" and imported.clock == CLOCK  # the table, folded again
    # Robin comes back (opens a Play session): the seat is theirs again.
    live, viewer = await app.open_game(game_id, created.seat_tokens[1])
    async with app.attend(live, viewer):
        pass
    assert changes(await events(app, game_id))[-1] == "handed_back"
    await replays_exactly(app, game_id)


@async_test
async def test_a_move_in_time_uses_the_turn_then_the_bank_and_resets_the_missed_turns() -> None:
    clock = Clock(START)
    app = online_app(clock)
    created = await create(app, "mooki", seat(name="Cléo", age=6), seat(name="Robin", age=4), clock=CLOCK)
    robin = created.seat_tokens[1]
    clock.now += 12  # 2 s of the bank
    game = await app.games.get_game(api.GetGameRequest(game_id=created.game_id), robin)
    assert game.seats[1].clock.bank.seconds == 3 and game.seats[1].clock.remaining.seconds == 3
    done = await app.moves.submit(
        api.SubmitCommandRequest(game_id=created.game_id, command=game.legal_commands[0]), robin
    )
    assert done.seats and done.seats[1].clock.bank.seconds == 3  # SubmitCommand shows the clocks too
    await replays_exactly(app, created.game_id)


# --- presence -------------------------------------------------------------------------


async def until(condition: Any, what: str) -> None:
    for _ in range(1000):
        if await condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"timed out waiting for {what}")


@async_test
async def test_presence_shows_open_sessions_and_recent_calls_and_is_not_an_event() -> None:
    app = online_app()
    await app.start()
    try:
        created = await create(app, "mooki", seat(name="Cléo"), seat(name="Robin"))
        game_id = created.game_id

        async def online() -> list[int]:
            return list((await app.games.get_game(api.GetGameRequest(game_id=game_id), "")).presence.online_seats)

        assert await online() == []
        live, viewer = await app.open_game(game_id, created.seat_tokens[1])
        async with app.attend(live, viewer) as sightings:
            assert (await anext(sightings)).online == (1,)
            await app.games.get_game(api.GetGameRequest(game_id=game_id), created.seat_tokens[0])  # a call
            assert (await anext(sightings)).online == (0, 1)
        assert 1 in await online()
        await until(lambda: _without(online, 1), "seat 1 to go offline once its session closed")
        assert changes(await events(app, game_id)) == []
    finally:
        await app.stop()


async def _without(online: Any, seat: int) -> bool:
    return seat not in await online()
