"""The Python clients against a real server: `ludotheque.Client` and its asyncio twin
`ludotheque.aio.Client` make the same calls, with the token, a command id per move and
a move resent after UNAVAILABLE (played once), and the highest version of each game
they were given said, with its receipt, on every call and Play join (`known_version`,
`known_receipt`); a Play session,
blocking or async, ends with the game; commands and events print as people read them."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Iterator

import grpc
import pytest
from ludotheque import Client, aio, rule_code
from ludotheque.calls import Call, Calls, KnownVersion
from ludotheque.mooki.v1 import mooki_pb2 as mooki
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from service.app.access.auth import TokenAuthority
from service.app.model.claims import RECEIPT_PURPOSE, Receipts
from tests.support.aio import async_test
from tests.support.proxy import CuttingProxy
from tests.support.server import SECRET, ServerProcess, running_server

BOT = {"name": "Robin", "bot": "greedy"}
# A channel that tries again soon after a refused connection (gRPC waits a second at first).
QUICK_RECONNECT = [("grpc.initial_reconnect_backoff_ms", 50), ("grpc.max_reconnect_backoff_ms", 100)]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with running_server() as process:
        yield process


@async_test
async def test_both_clients_make_the_same_calls() -> None:
    calls = {name for name, value in vars(Calls).items() if isinstance(value, Call)}
    assert {"create_game", "get_game", "submit", "join_game", "replay_log", "list_game_kinds"} <= calls
    async with aio.Client("localhost:1") as asynchronous:
        blocking = Client("localhost:1")
        for name in sorted(calls):  # one table of calls: each the same method, awaited or not
            assert getattr(Client, name) is getattr(aio.Client, name), name
            assert inspect.iscoroutinefunction(getattr(asynchronous, name)), name
            assert not inspect.iscoroutinefunction(getattr(blocking, name)), name
            assert inspect.signature(getattr(blocking, name)) == inspect.signature(getattr(asynchronous, name))
        for name in ("stream", "history", "play", "with_token"):  # the same parameters, returned differently
            parameters = inspect.signature(getattr(Client, name)).parameters
            assert parameters == inspect.signature(getattr(aio.Client, name)).parameters, name
        blocking.close()


def test_a_play_session_ends_with_the_game(server: ServerProcess) -> None:
    # The README's loop: no finish(), no break; it ends once the game is over and the
    # last move has its result.
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, BOT])
        cleo = lobby.with_token(created.seat_tokens[0])
        events: list[game_pb2.Event] = []
        sent, answered = set(), set()
        with cleo.play(created.game_id) as session:
            for message in session:
                events.extend(message.events)
                if message.HasField("result"):
                    answered.add(message.result.command_id)
                if message.HasField("turn"):
                    sent.add(session.send(message.turn.legal_commands[0]))
        assert events[-1].game_over and events == cleo.history(created.game_id)
        assert sent == answered
        with lobby.play(created.game_id) as watching:  # a spectator's session of the finished game
            assert [event for message in watching for event in message.events] == lobby.history(created.game_id)


@async_test
async def test_the_asyncio_client_plays_a_whole_game(server: ServerProcess) -> None:
    async with aio.Client(server.target) as lobby:
        created = await lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, BOT])
        cleo, robin = (lobby.with_token(token) for token in created.seat_tokens)
        first = await cleo.get_game(created.game_id)
        assert first.viewer.seat == 0 and first.legal_commands  # the token: Cléo's seat, her moves
        with pytest.raises(grpc.RpcError) as refused:
            await robin.submit(created.game_id, first.legal_commands[0])
        assert rule_code(refused.value) == "not_your_turn"  # Robin's token acts as Robin; the helpers read aio errors
        played = await cleo.submit(created.game_id, first.legal_commands[0], command_id="cleo-first")
        assert played.events[0].command_id == "cleo-first"
        again = await cleo.submit(created.game_id, first.legal_commands[0], command_id="cleo-first")
        assert again.replayed  # the same command id: played once
        events: list[game_pb2.Event] = []
        async with cleo.play(created.game_id, from_version=played.version + 1) as session:
            async for message in session:  # ends with the game
                events.extend(message.events)
                if message.HasField("turn"):
                    await session.send(message.turn.legal_commands[0])
        assert events[-1].game_over
        history = await cleo.history(created.game_id)
        assert events == history[played.version :]
        streamed = [event async for event in lobby.stream(created.game_id)]  # ends after the last event
        assert [event.version for event in streamed] == [event.version for event in history]
        assert (await lobby.get_game(created.game_id)).outcome.summary


def last_loss(game: game_pb2.Game) -> tuple[int, int]:
    loss = game.history_losses[-1]
    return (loss.first, loss.last)


def given_then_lost(game_id: str, version: int) -> KnownVersion:
    """A version as another server of the deployment gave it, with its receipt, before
    a failover lost it (signed with the test servers' secret)."""
    receipts = Receipts(TokenAuthority(SECRET.encode()).derived_keys(RECEIPT_PURPOSE))
    return KnownVersion(version, receipts.sign(game_id, version, 0x5EED))


def test_the_blocking_client_says_the_versions_it_was_given(server: ServerProcess) -> None:
    """It remembers the highest version of each game it was given (`known`, shared with
    the clients with_token makes) with its receipt, and says them on its calls and its
    Play join: told of versions the server's store does not hold (as another server
    gave them before a failover lost them), the server records them lost instead of
    reusing them. A version without its receipt changes nothing."""
    with Client(server.target) as lobby:
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        game_id = created.game_id
        player = lobby.with_token(created.seat_tokens[created.game.to_act[0]])
        assert player.known is lobby.known and lobby.known[game_id] == created.game.version
        played = player.submit(game_id, player.get_game(game_id).legal_commands[0])
        assert lobby.known == {game_id: played.version} and lobby.known_receipt(game_id) == played.receipt != ""
        lobby.known[game_id] = played.version + 2  # made up: no receipt
        assert not player.get_game(game_id).history_losses
        lobby.known[game_id] = claimed = given_then_lost(game_id, played.version + 2)
        seen = player.get_game(game_id)  # GetGame says it
        assert last_loss(seen) == (played.version + 1, claimed) and lobby.known[game_id] == seen.version
        lobby.known[game_id] = claimed = given_then_lost(game_id, seen.version + 1)
        moved = player.submit(game_id, seen.legal_commands[0])  # SubmitCommand says it
        assert moved.version > claimed + 1 and lobby.known[game_id] == moved.version
        assert last_loss(player.get_game(game_id)) == (claimed, claimed)
        lobby.known[game_id] = claimed = given_then_lost(game_id, moved.version + 1)
        with player.play(game_id, from_version=claimed) as session:  # the Play join says it
            told = next(session)
        assert told.events[0].history_loss.last == claimed and lobby.known[game_id] >= told.events[-1].version


@async_test
async def test_the_asyncio_client_says_the_versions_it_was_given_too(server: ServerProcess) -> None:
    async with aio.Client(server.target) as lobby:
        created = await lobby.create_game("mooki", ["Cléo", "Robin"])
        game_id = created.game_id
        player = lobby.with_token(created.seat_tokens[created.game.to_act[0]])
        assert player.known is lobby.known and lobby.known[game_id] == created.game.version
        lobby.known[game_id] = claimed = given_then_lost(game_id, created.game.version + 1)
        page = await player.list_events(game_id)  # ListEvents says it
        assert page.events[-1].history_loss.last == claimed and lobby.known[game_id] == page.version
        lobby.known[game_id] = claimed = given_then_lost(game_id, page.version + 1)
        replayed = await player.replay(game_id)  # ReplayGame says it
        assert replayed.version > claimed and lobby.known[game_id] == replayed.version
        lobby.known[game_id] = claimed = given_then_lost(game_id, replayed.version + 1)
        async for event in player.stream(game_id, from_version=claimed):  # StreamEvents says it
            if event.version > claimed:  # the notice, after the version lost
                break
        assert event.history_loss.last == claimed and lobby.known[game_id] == event.version
        assert lobby.known_receipt(game_id)  # the stream's receipt, kept
        lobby.known[game_id] = claimed = given_then_lost(game_id, event.version + 1)
        async with player.play(game_id, from_version=claimed) as session:  # the Play join says it
            told = await session.__anext__()
        assert told.events[0].history_loss.last == claimed and lobby.known[game_id] >= told.events[-1].version
        assert told.receipt and lobby.known_receipt(game_id)  # Play's receipts, kept
        assert last_loss(await player.get_game(game_id)) == (claimed, claimed)


def held_then_released(proxy: CuttingProxy) -> threading.Thread:
    """Cuts every connection through the proxy and refuses new ones until one was
    refused: the next call fails with UNAVAILABLE, and its retry gets through."""
    proxy.cut()
    proxy.hold()

    def release() -> None:
        proxy.refusing.wait(30)
        proxy.release()

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    return thread


def test_a_move_is_resent_after_unavailable_and_played_once(server: ServerProcess) -> None:
    with CuttingProxy(server.grpc_port) as proxy:
        channel = grpc.insecure_channel(f"127.0.0.1:{proxy.port}", options=QUICK_RECONNECT)
        lobby = Client(proxy.url, channel=channel, retries=8)
        created = lobby.create_game("mooki", ["Cléo", "Robin"])
        cleo = lobby.with_token(created.seat_tokens[0])
        draw = mooki.Command(draw=mooki.Draw(pile=1))
        releasing = held_then_released(proxy)
        done = cleo.submit(created.game_id, draw, command_id="through-a-drop")
        releasing.join()
        assert proxy.refused >= 1 and done.version == 2
        history = cleo.history(created.game_id)
        assert [event.command_id for event in history].count("through-a-drop") == 1
        channel.close()


@async_test
async def test_the_asyncio_client_resends_a_move_after_unavailable_too(server: ServerProcess) -> None:
    with CuttingProxy(server.grpc_port) as proxy:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{proxy.port}", options=QUICK_RECONNECT)
        lobby = aio.Client(proxy.url, channel=channel, retries=8)
        created = await lobby.create_game("mooki", ["Cléo", "Robin"])
        cleo = lobby.with_token(created.seat_tokens[0])
        releasing = held_then_released(proxy)
        done = await cleo.submit(created.game_id, mooki.Command(draw=mooki.Draw(pile=1)), command_id="drop")
        await asyncio.to_thread(releasing.join)
        assert proxy.refused >= 1 and done.version == 2
        assert [event.command_id for event in await cleo.history(created.game_id)].count("drop") == 1
        await channel.close()


def test_commands_and_events_print_as_people_read_them(server: ServerProcess) -> None:
    with Client(server.target) as lobby, Client(server.target, locale="fr") as french:
        created = lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, BOT])
        game = lobby.with_token(created.seat_tokens[0]).get_game(created.game_id)
        command = game.legal_commands[0]
        assert str(command) == command.description.text and str(command).startswith("Draw from the")
        [dealt] = lobby.list_events(created.game_id, to_version=1).events
        assert str(dealt) == f"1: {dealt.description.text}" and "\n" not in str(dealt)
        [dealt_fr] = french.list_events(created.game_id, to_version=1).events
        assert str(dealt_fr).startswith("1: ") and str(dealt_fr) != str(dealt)  # in the client's language
    # Messages made by hand have no description: one line, every field, zeros too.
    assert str(mooki.Command(draw=mooki.Draw(pile=0))) == '{"draw": {"pile": 0}}'
    assert str(game_pb2.Command(mooki=mooki.Command(draw=mooki.Draw(pile=1)))) == 'mooki: {"draw": {"pile": 1}}'
    assert repr(mooki.Command(draw=mooki.Draw(pile=1))) == "draw {\n  pile: 1\n}\n"  # repr is protobuf's own
    assert str(api.PlayJoin(game_id="g")) == 'game_id: "g"\n'  # and so is every other message
