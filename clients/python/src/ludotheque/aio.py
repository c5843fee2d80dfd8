"""The asyncio client of the Ludothèque GameService: `ludotheque.Client`'s twin over
grpc.aio, with the same calls (ludotheque/calls.py), awaited, the same tokens, retries
and command ids, and the same memory of the versions it was given (`known`, sent as
`known_version`).

    import asyncio
    from ludotheque import aio

    async def main() -> None:
        async with aio.Client("localhost:50051") as lobby:
            created = await lobby.create_game("mooki", [{"name": "Cléo", "age": 6}, {"name": "Robin", "bot": "greedy"}])
            cleo = lobby.with_token(created.seat_tokens[0])
            async with cleo.play(created.game_id) as session:  # ends with the game
                async for message in session:
                    for event in message.events:
                        print(event)
                    if message.HasField("turn"):
                        await session.send(message.turn.legal_commands[0])

    asyncio.run(main())
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import grpc
from google.protobuf.message import Message

from ludotheque.calls import Asynchronous, Calls, metadata, should_retry
from ludotheque.client import GameEnd, play_command
from ludotheque.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

__all__ = ["Client", "PlaySession"]


class Client(Calls, Asynchronous):
    """One caller of the service over a grpc.aio channel: a seat (its token), the admin
    (the admin token) or a spectator (no token). Every call of `ludotheque.Client`,
    awaited (`await lobby.get_game(game_id)`); `stream` is an async iterator, `play` an
    async Play session. Use it in `async with`, or `await client.close()`."""

    def __init__(
        self,
        target: str,
        token: str | None = None,
        *,
        channel: grpc.aio.Channel | None = None,
        timeout: float = 10.0,
        retries: int = 3,
        locale: str | None = None,
        known: dict[str, int] | None = None,
    ) -> None:
        self.target = target
        # The highest version of each game this client (and those with_token made) was given.
        self.known = known if known is not None else {}
        self.token = token
        self.locale = locale  # descriptions and error messages in this language (accept-language)
        self.timeout = timeout
        self.retries = retries
        self._owns_channel = channel is None
        self.channel = channel if channel is not None else grpc.aio.insecure_channel(target)
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)

    def with_token(self, token: str | None) -> Client:
        """A client acting with `token` (a seat token, the admin token, or None for a
        spectator) over the same connection."""
        return Client(
            self.target,
            token,
            channel=self.channel,
            timeout=self.timeout,
            retries=self.retries,
            locale=self.locale,
            known=self.known,
        )

    async def close(self) -> None:
        if self._owns_channel:
            await self.channel.close()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def _metadata(self) -> tuple[tuple[str, str], ...]:
        return metadata(self.token, self.locale)

    async def _unary(self, rpc: str, request: Message, *, retry: bool) -> Any:
        method = getattr(self.stub, rpc)
        for attempt in range(self.retries + 1):
            try:
                return await method(request, metadata=self._metadata, timeout=self.timeout)
            except grpc.RpcError as error:
                delay = should_retry(error, attempt, self.retries) if retry else None
                if delay is None:
                    raise
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    # --- streams -------------------------------------------------------------------

    async def stream(self, game_id: str, from_version: int = 1) -> AsyncGenerator[game_pb2.Event, None]:
        """Events from `from_version`, then live ones; ends after a finished game's
        last event. Stop early with `break` (the call ends on the server too)."""
        request = self.saying_known(game_service_pb2.StreamEventsRequest(game_id=game_id, from_version=from_version))
        call = self.stub.StreamEvents(request, metadata=self._metadata)
        try:
            async for message in call:
                self.saw(game_id, message.event.version, message.receipt)
                yield message.event
        finally:
            call.cancel()

    async def history(self, game_id: str, from_version: int = 1) -> list[game_pb2.Event]:
        """Every event from `from_version` to the latest, as this client may see them,
        however many pages that takes."""
        events: list[game_pb2.Event] = []
        while from_version:
            page = await self.list_events(game_id, from_version=from_version)
            events.extend(page.events)
            from_version = page.next_from_version
        return events

    def play(
        self,
        game_id: str,
        from_version: int = 1,
        *,
        views: bool = False,
        view_updates: bool = False,
        presence: bool = False,
    ) -> PlaySession:
        """A Play session for this client's seat on one stream, as
        `ludotheque.Client.play`: `async for message in session` (it ends with the game),
        `await session.send(command)`."""
        join = game_service_pb2.PlayJoin(
            game_id=game_id,
            from_version=from_version,
            views=views,
            view_updates=view_updates,
            presence=presence,
        )
        self.saying_known(join)
        return PlaySession(self, self.stub.Play(metadata=self._metadata), join, presence)


class PlaySession:
    """One seat's Play session over grpc.aio: `async for message in session` yields
    PlayResponses (read as its events, then a command's result, then a turn), and ends
    once the game is over and every move sent has its result (unless it follows
    presence, to hear of a rematch); `await send(command)` plays a move. Close it (or
    use `async with`) to end it sooner."""

    def __init__(self, client: Client, call: Any, join: game_service_pb2.PlayJoin, presence: bool) -> None:
        self._client, self._game_id = client, join.game_id
        self._call = call
        self._join: game_service_pb2.PlayJoin | None = join
        self._ending = GameEnd(presence)

    async def _joined(self) -> None:
        """Sends the join, first of all (before the first read or move)."""
        if self._join is not None:
            join, self._join = self._join, None
            await self._call.write(game_service_pb2.PlayRequest(join=join))

    async def send(
        self, command: Message, *, command_id: str | None = None, expected_version: int | None = None
    ) -> str:
        """Sends a move; returns its command id (its result will carry it)."""
        await self._joined()
        request = play_command(command, command_id, expected_version)
        self._ending.sent(request.command.command_id)
        await self._call.write(request)
        return str(request.command.command_id)

    def __aiter__(self) -> PlaySession:
        return self

    async def __anext__(self) -> game_service_pb2.PlayResponse:
        await self._joined()
        message = await self._call.read()
        if message is grpc.aio.EOF:
            raise StopAsyncIteration
        assert isinstance(message, game_service_pb2.PlayResponse)
        self._client.saw_play(self._game_id, message)
        if self._ending.received(message):
            await self.finish()  # the server then ends the stream: the iteration stops
        return message

    async def finish(self) -> None:
        """Sends nothing more (a half-close): the session then ends by itself once the
        results of the commands sent have come, and iterating over it stops."""
        if not self._ending.finished:
            self._ending.finished = True
            await self._joined()
            await self._call.done_writing()

    def close(self) -> None:
        self._ending.finished = True
        self._call.cancel()

    async def __aenter__(self) -> PlaySession:
        await self._joined()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
