"""The memory rule on every read path of the service, against the real GameApp: while a
game goes on, what a seat or a spectator reads of the past again is what the table
shows now (engines/<kind>/memory.py). Two worlds a viewer cannot tell apart now — the
same game but for faces since buried (Mooki Island), or for where a Rain tile lies face
down again (the picnic) — give that viewer the same answers on every path: ListEvents,
ReplayGame at every version, StreamEvents from the first version, a Play session's
catch-up, ExportGame, GetGame, in both languages; the admin tells them apart."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, cast

from google.protobuf.message import Message
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.picnic.v1 import picnic_pb2 as picnic
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.registry import ENGINES
from service.app import GameApp
from service.app.model import envelopes
from service.app.model.live_game import LiveGame
from service.app.play.play_session import play
from tests.mooki.test_memory import swapped_world
from tests.support.aio import async_test
from tests.support.apps import ADMIN, new_app

LOCALES = ("en", "fr")
SEATS = [game_pb2.SeatSpec(name="Cléo", age=6), game_pb2.SeatSpec(name="Robin", age=38)]


async def played(
    app: GameApp, kind: str, options: Message, moves: int, choose: Callable[..., Message]
) -> api.CreateGameResponse:
    """A game created and played through the app: `moves` commands, each chosen by
    `choose(state, legal, rng)` for the seat to act, sent with its seat's token."""
    request = api.CreateGameRequest(kind=kind, seats=SEATS)
    getattr(request.options, kind).CopyFrom(options)
    created = await app.games.create_game(request, "")
    rng = random.Random(7)
    for number in range(moves):
        live = await app.live.load(created.game_id)
        to_act = live.engine.status(live.state).to_act
        if not to_act:
            break
        seat = to_act[0]
        legal = live.engine.legal_commands(live.state, seat)
        command = envelopes.command(kind, choose(live.state, legal, rng))
        submit = api.SubmitCommandRequest(game_id=created.game_id, command=command, command_id=f"m{number}")
        await app.moves.submit(submit, created.seat_tokens[seat])
    return created


async def other_world(
    app: GameApp, source: str, game_id: str, deal: Message, moved: Callable[[Message], Message] = lambda c: c
) -> list[str]:
    """World B, stored beside `source` as `game_id`: its log with `deal` for the deal
    and each command (changed by `moved`) decided again on B's states, as an import
    stores a game (without checking the deal against the seed). Its seat tokens."""
    log = (await app.logs.export_game(api.ExportGameRequest(game_id=source), ADMIN)).log
    record = game_pb2.GameRecord()
    record.CopyFrom((await app.live.load(source)).record)
    record.game_id = game_id
    engine = ENGINES[record.kind]
    now = app.now_ms()
    live = LiveGame(record, engine, engine.initial_state(), 0, now)
    state, pending = engine.initial_state(), iter([deal])
    stored: list[game_pb2.Event] = []
    for event in log.events:
        if event.HasField("command"):
            command = moved(getattr(event.command, record.kind))
            event.command.CopyFrom(envelopes.command(record.kind, command))
            pending = iter(engine.decide(state, event.seat, command, random.Random(0)))
        payload = next(pending)
        state = engine.evolve(state, payload)
        copy = envelopes.wrap(game_pb2.Event, record.kind, payload)
        copy.version, copy.command_id, copy.rules_version = event.version, event.command_id, event.rules_version
        if event.HasField("seat"):
            copy.seat = event.seat
        copy.recorded_at.CopyFrom(event.recorded_at)
        if event.HasField("command"):
            copy.command.CopyFrom(event.command)
        stored.append(copy)
        live.apply(copy)
    live.updated_at_ms = now
    await app.writer.create(live, [], live.state, now, given=stored)
    app.live.cache.remember(live)
    return [app.tokens.seat_token(game_id, seat, live.seat_generation(seat)) for seat in range(len(record.seats))]


async def everything_read(app: GameApp, game_id: str, token: str, locale: str) -> dict[str, Any]:
    """What `token` reads of the game on every read path, in `locale` (the game's id
    taken out of what names it)."""
    live = await app.live.load(game_id)
    version = live.version
    read: dict[str, Any] = {}
    read["list_events"] = list(
        (await app.history.list_events(api.ListEventsRequest(game_id=game_id, locale=locale), token)).events
    )
    read["replays"] = [
        await app.history.replay(api.ReplayGameRequest(game_id=game_id, at_version=at, locale=locale), token)
        for at in range(1, version + 1)
    ]
    stream = await app.history.stream_events(
        api.StreamEventsRequest(game_id=game_id, from_version=1, locale=locale), token
    )
    read["stream"] = [event async for event in _first(stream.events, version)]
    read["play"] = await _play_catch_up(app, game_id, token, locale, version)
    read["export"] = list(
        (await app.logs.export_game(api.ExportGameRequest(game_id=game_id, locale=locale), token)).log.events
    )
    game = await app.games.get_game(api.GetGameRequest(game_id=game_id, locale=locale), token)
    read["get_game"] = (game.view, list(game.legal_commands))
    return read


async def _first(events: AsyncIterator[game_pb2.Event], version: int) -> AsyncIterator[game_pb2.Event]:
    """The events up to `version` (a game going on: its stream does not end)."""
    try:
        async for event in events:
            yield event
            if event.version >= version:
                return
    finally:
        await cast(Any, events).aclose()


async def _play_catch_up(app: GameApp, game_id: str, token: str, locale: str, version: int) -> list[api.PlayResponse]:
    """A Play session joining from version 1: what it is sent until it has the events
    up to `version` and the game's rest there (a turn, for the seat to act)."""
    caught_up = asyncio.Event()

    async def requests() -> AsyncIterator[api.PlayRequest]:
        yield api.PlayRequest(join=api.PlayJoin(game_id=game_id, from_version=1, locale=locale, views=True))
        await caught_up.wait()

    received: list[api.PlayResponse] = []
    session = play(app, requests(), token)
    async with asyncio.timeout(10):
        async for response in session:
            # A receipt is a MAC of the game's id, the version and the stored event (keyed by
            # the server's secret): two games' receipts always differ, and tell nothing.
            response.ClearField("receipt")
            received.append(response)
            if any(e.version >= version for r in received for e in r.events):
                caught_up.set()
    return received


async def check_two_worlds(
    app: GameApp, game_a: str, tokens_a: Sequence[str], game_b: str, tokens_b: Sequence[str]
) -> None:
    for token_a, token_b in [*zip(tokens_a, tokens_b, strict=True), ("", "")]:
        for locale in LOCALES:
            read_a = await everything_read(app, game_a, token_a, locale)
            read_b = await everything_read(app, game_b, token_b, locale)
            for path in read_a:
                assert read_a[path] == read_b[path], (
                    f"{path} tells the worlds apart (seat token {token_a[:8]!r}, {locale})"
                )
    admin_a = await app.history.list_events(api.ListEventsRequest(game_id=game_a), ADMIN)
    admin_b = await app.history.list_events(api.ListEventsRequest(game_id=game_b), ADMIN)
    assert admin_a.events != admin_b.events, "the worlds are the same: the test proves nothing"


def _random_move(state: Any, legal: list[Message], rng: random.Random) -> Message:
    return rng.choice(legal)


@async_test
async def test_a_buried_mooki_face_never_reaches_a_seat_or_a_spectator_during_play() -> None:
    app = new_app(seed=11)
    created = await played(app, "mooki", mooki.Options(), 30, _random_move)
    live = await app.live.load(created.game_id)
    assert not live.status.finished
    log = (await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id), ADMIN)).log
    deal, swaps = swapped_world(cast(mooki.Event, envelopes.event_payload(log.events[0])), live.state, random.Random(3))
    assert swaps
    tokens_b = await other_world(app, created.game_id, "world-b", deal)
    await check_two_worlds(app, created.game_id, created.seat_tokens, "world-b", tokens_b)
    # And the memory did hide something: Cléo reads covered cards back as cards.
    events = (
        await app.history.list_events(api.ListEventsRequest(game_id=created.game_id), created.seat_tokens[0])
    ).events
    keys = {event.description.key for event in events}
    assert "mooki.event.card_placed_unseen" in keys and "mooki.event.card_drawn_unseen" in keys


def _known_rain_first(state: Any, legal: list[Message], rng: random.Random) -> Message:
    """Draws at random, never twice where a Rain tile went back; else any move."""
    draws = [c for c in legal if cast(picnic.Command, c).WhichOneof("action") == "draw"]
    fresh = [c for c in draws if cast(picnic.Command, c).draw.place not in state.rain_places]
    return rng.choice(fresh or legal)


@async_test
async def test_where_a_rain_tile_went_back_never_reaches_a_seat_or_a_spectator_during_play() -> None:
    for seed in range(1, 40):  # a game where a Rain tile fell, and lies face down again
        app = new_app(seed=seed)
        created = await played(app, "picnic", picnic.Options(), 24, _known_rain_first)
        live = await app.live.load(created.game_id)
        state = live.state
        rainy = sorted(p for p in state.rain_places if state.lid[p] is not None)
        if live.status.finished or not rainy:
            continue
        rain = rainy[0]
        drawn = {
            e.tile_drawn.place
            for e in _payloads(await app.history.list_events(api.ListEventsRequest(game_id=created.game_id), ADMIN))
            if e.HasField("tile_drawn")
        }
        twins = [
            p
            for p, tile in enumerate(state.lid)
            if tile is not None and p not in drawn and state.backs[p] == state.backs[rain]
        ]
        if twins:
            break
    else:
        raise AssertionError("no game with a Rain tile back in the lid")
    other = twins[0]
    log = (await app.logs.export_game(api.ExportGameRequest(game_id=created.game_id), ADMIN)).log
    deal = picnic.Event()
    deal.CopyFrom(cast(picnic.Event, envelopes.event_payload(log.events[0])))
    lid = deal.game_started.lid
    swapped = lid[rain].tile.SerializeToString(), lid[other].tile.SerializeToString()
    lid[rain].tile.ParseFromString(swapped[1])
    lid[other].tile.ParseFromString(swapped[0])

    def moved(command: Message) -> Message:
        changed = picnic.Command()
        changed.CopyFrom(cast(picnic.Command, command))
        if changed.HasField("draw") and changed.draw.place in (rain, other):
            changed.draw.place = other if changed.draw.place == rain else rain
        return changed

    tokens_b = await other_world(app, created.game_id, "world-b", deal, moved)
    await check_two_worlds(app, created.game_id, created.seat_tokens, "world-b", tokens_b)
    events = (await app.history.list_events(api.ListEventsRequest(game_id=created.game_id), "")).events
    assert any(e.picnic.rain_fell.place_hidden for e in events if e.picnic.HasField("rain_fell"))


def _payloads(response: api.ListEventsResponse) -> list[picnic.Event]:
    return [e.picnic for e in response.events if e.HasField("picnic")]


def _keep_a_mooki(state: Any) -> mooki.Command:
    """Keeps the face of the card in hand that goes onto the player's own collection."""
    card = state.drawn.card
    return mooki.Command(place=mooki.Place(side=mooki.SIDE_HIDDEN if card.shown.is_spider else mooki.SIDE_SHOWN))


@async_test
async def test_a_retried_command_tells_its_first_answer_as_the_seat_may_recall_it_now() -> None:
    app = new_app(seed=5)
    created = await played(app, "mooki", mooki.Options(), 0, _random_move)
    cleo, game_id = created.seat_tokens[0], created.game_id

    async def move(command: mooki.Command, command_id: str) -> api.SubmitCommandResponse:
        request = api.SubmitCommandRequest(
            game_id=game_id, command=envelopes.command("mooki", command), command_id=command_id
        )
        return await app.moves.submit(request, cleo)

    first = await move(mooki.Command(draw=mooki.Draw(pile=0)), "draw-1")
    assert first.events[0].mooki.card_drawn.HasField("hidden")  # as it happened, she saw both faces
    await move(_keep_a_mooki((await app.live.load(game_id)).state), "place-1")
    await played_by_robin(app, created)
    await move(mooki.Command(draw=mooki.Draw(pile=0)), "draw-2")
    await move(_keep_a_mooki((await app.live.load(game_id)).state), "place-2")  # on top of her first card
    again = await move(mooki.Command(draw=mooki.Draw(pile=0)), "draw-1")
    assert again.replayed and again.version == first.version
    drawn = again.events[0].mooki.card_drawn
    assert not drawn.HasField("hidden") and not drawn.HasField("shown")
    assert again.events[0].description.key == "mooki.event.card_drawn_unseen"


async def played_by_robin(app: GameApp, created: api.CreateGameResponse) -> None:
    """Robin draws and keeps a Mooki for himself."""
    robin, game_id = created.seat_tokens[1], created.game_id
    draw = api.SubmitCommandRequest(
        game_id=game_id, command=envelopes.command("mooki", mooki.Command(draw=mooki.Draw(pile=1)))
    )
    await app.moves.submit(draw, robin)
    keep = envelopes.command("mooki", _keep_a_mooki((await app.live.load(game_id)).state))
    await app.moves.submit(api.SubmitCommandRequest(game_id=game_id, command=keep), robin)
