"""Play: a seat's session on one bidirectional stream.

The client joins a game, then sends commands. The server sends every event of the
game from the version asked (redacted for the seat), a `turn` whenever the game comes
to rest waiting for the seat (its legal commands, and its view if asked), and the
`result` of each command once the events it caused have been sent. What is ready at
once goes in one message (events, then a result, then a turn): a stream message costs
the server a good part of a unary call, so a move costs its mover one message each way
and every other seat one message. While the session lasts its seat is online; a session
that asks for presence is sent who is connected when it starts and whenever that
changes, and once the game is over, its rematch when someone asks for one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.contract import Role, Viewer
from service.app import GameApp, LiveGame
from service.app.errors import ServiceError, invalid_argument, status_of
from service.app.presence import Sighting

# Messages waiting for a slow client; past this the producers wait (no memory grows).
QUEUE_SIZE = 256


async def play(app: GameApp, requests: AsyncIterator[api.PlayRequest], token: str) -> AsyncIterator[api.PlayResponse]:
    first = await anext(requests, None)
    if first is None or first.WhichOneof("message") != "join":
        raise invalid_argument("join", "The first message of a Play session must be a join.")
    live, viewer = await app.open_game(first.join.game_id, token)
    async with app.attend(live, viewer) as sightings:  # the seat is online while the session lasts
        session = _Session(app, live, viewer, token, first.join, sightings)
        async for response in session.run(requests):
            yield response


class _Session:
    def __init__(
        self,
        app: GameApp,
        live: LiveGame,
        viewer: Viewer,
        token: str,
        join: api.PlayJoin,
        sightings: AsyncIterator[Sighting],
    ) -> None:
        self.app = app
        self.live = live
        self.viewer = viewer
        self.token = token
        self.join = join
        self.sightings = sightings
        self.out: asyncio.Queue[api.PlayResponse | BaseException | None] = asyncio.Queue(QUEUE_SIZE)
        self.sent_version = max(join.from_version, 1) - 1  # every version up to this one was sent
        self.following = True
        self.progress = asyncio.Condition()

    async def run(self, requests: AsyncIterator[api.PlayRequest]) -> AsyncIterator[api.PlayResponse]:
        events = asyncio.create_task(self._forward_events())
        commands = asyncio.create_task(self._answer_commands(requests))
        presence = asyncio.create_task(self._forward_presence()) if self.join.presence else None
        held: api.PlayResponse | BaseException | None = None  # taken from the queue, not yet sent
        try:
            while True:
                item = held if held is not None else await self.out.get()
                held = None
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                # One turn of the event loop lets the other task finish its part of the
                # same step (a command's result right after its events) before we send.
                await asyncio.sleep(0)
                message = item
                while not self.out.empty():
                    following = self.out.get_nowait()
                    if following is None or isinstance(following, BaseException) or not _fits(message, following):
                        held = following
                        break
                    message.MergeFrom(following)
                yield message
        finally:
            tasks = [events, commands] if presence is None else [events, commands, presence]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _forward_events(self) -> None:
        try:
            async for event, redacted in self.app.follow(self.live, self.viewer, max(self.join.from_version, 1)):
                if redacted is not None:
                    await self.out.put(api.PlayResponse(events=[redacted]))
                await self._sent(event.version)
                await self._maybe_turn(event.version)
        except ServiceError as error:
            await self.out.put(error)
        finally:
            async with self.progress:
                self.following = False
                self.progress.notify_all()
            if self.live.status.finished:
                self.app.game_over(self.live)  # the presence watch looks for a rematch from now on

    async def _forward_presence(self) -> None:
        """Who is connected, at once and at each change; a finished game's rematch,
        with the seat's token for it, once someone asked for it."""
        rematch = ""
        async for sighting in self.sightings:
            if self.live.status.finished:
                self.app.game_over(self.live)  # (the watch exists now) look for a rematch
            message = api.PlayResponse(presence=game_pb2.Presence(online_seats=sighting.online))
            if sighting.rematch and sighting.rematch != rematch:
                rematch = sighting.rematch
                message.rematch.game_id = rematch
                if self.viewer.seat is not None:
                    message.rematch.seat_token = self.app.tokens.seat_token(rematch, self.viewer.seat)
            await self.out.put(message)

    async def _sent(self, version: int) -> None:
        async with self.progress:
            self.sent_version = version
            self.progress.notify_all()

    async def _maybe_turn(self, version: int) -> None:
        """A turn when the game rests at `version` waiting for this seat."""
        if self.viewer.role is not Role.SEAT:
            return
        if self.live.version < version:
            await self.app.catch_up(self.live)  # another process appended it
        if self.live.version != version:
            return  # more events are on their way: the game is not at rest yet
        legal = self.app.turn_of(self.live, self.viewer)
        if legal:
            turn = api.PlayTurn(version=version, legal_commands=legal, clock=self.app.clock_of(self.live, self.viewer))
            if self.join.views:
                turn.view.CopyFrom(self.app.view_of(self.live, self.viewer))
            await self.out.put(api.PlayResponse(turn=turn))

    async def _answer_commands(self, requests: AsyncIterator[api.PlayRequest]) -> None:
        try:
            async for request in requests:
                await self.out.put(api.PlayResponse(result=await self._play(request)))
        except ServiceError as error:  # an unreadable request ends the session
            await self.out.put(error)
        finally:
            await self.out.put(None)  # the client is done: so is the session

    async def _play(self, request: api.PlayRequest) -> api.PlayResult:
        if request.WhichOneof("message") != "command":
            error = invalid_argument("command", "After the join, send commands only.")
            return api.PlayResult(error=status_of(error))
        command = request.command
        submit = api.SubmitCommandRequest(
            game_id=self.live.game_id, command=command.command, command_id=command.command_id
        )
        if command.HasField("expected_version"):
            submit.expected_version = command.expected_version
        try:
            done = await self.app.apply_command(submit, self.token)
        except ServiceError as error:
            return api.PlayResult(command_id=command.command_id, error=status_of(error))
        async with self.progress:  # the result comes after the events it caused
            await self.progress.wait_for(lambda: self.sent_version >= done.last_version or not self.following)
        command_id = done.events[0].command_id if done.events else command.command_id
        return api.PlayResult(command_id=command_id, version=done.last_version, replayed=done.replayed)


def _fits(message: api.PlayResponse, following: api.PlayResponse) -> bool:
    """Whether `following` can join `message`, to be read as events, then a result, then
    a turn. Events after a result or a turn start a new message; a result queued after
    the turn may go before it (the result changes nothing, and its events came first)."""
    if following.events and (message.HasField("result") or message.HasField("turn")):
        return False
    if following.HasField("result") and message.HasField("result"):
        return False
    for part in ("presence", "rematch"):  # a newer one replaces, never merges into, the one before
        if following.HasField(part) and message.HasField(part):
            return False
    return not (following.HasField("turn") and message.HasField("turn"))
