"""Play: a seat's session on one bidirectional stream.

The client joins a game, then sends commands. The server sends every event of the
game from the version asked (redacted for the seat), a `turn` whenever the game comes
to rest waiting for the seat (its legal commands, and its view if asked), and the
`result` of each command once the events it caused have been sent. What is ready at
once goes in one message (events, then a result, then a turn): a stream message costs
the server a good part of a unary call, so a move costs its mover one message each way
and every other seat one message.

The same session serves every transport (gRPC's stream, the WebSocket): it starts with
a join that must come within the app's join deadline, may carry the token itself, and
may ask for the caller's view whenever the game comes to rest (`view_updates`); it
ends when the client stops sending, once the results of its commands are out. While
the session lasts its seat is online; a session that asks for presence is sent who is
connected when it starts and whenever that changes, and once the game is over, its
rematch when someone asks for one."""

from __future__ import annotations

import asyncio
import enum
import time
from collections.abc import AsyncIterator

from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.contract import Role, Viewer
from service.app import GameApp, LiveGame
from service.app.history.history import generation_of
from service.app.model.errors import Code, ServiceError, code_name, invalid_argument, status_of
from service.app.model.mailbox import Mailbox
from service.app.observe import access_log, request_context
from service.app.online.presence import Sighting
from service.app.views.views import LiveAudience, hides_players

# Messages waiting for a slow client; past this the producers wait (no memory grows).
QUEUE_SIZE = 256
# Events merged into one message at most: a catch-up goes a page at a time, each page
# sent (and, over a WebSocket, read: service/api/read_receipts.py) before the next.
PAGE_EVENTS = 64


class _Nothing(enum.Enum):
    """No message held back (a marker of its own: None is the end of the session)."""

    NOTHING = enum.auto()


NOTHING = _Nothing.NOTHING


async def play(app: GameApp, requests: AsyncIterator[api.PlayRequest], token: str) -> AsyncIterator[api.PlayResponse]:
    """A session: `requests` from the client, `token` from the transport's headers
    (the join's own `token` may carry it instead)."""
    join = await _join(app, requests)
    if join.token:
        if token and token != join.token:
            raise invalid_argument("join.token", "The join's token and the authorization header differ: send one.")
        token = join.token
    live, viewer = await app.open_game(join.game_id, token, join.known_version, join.known_receipt)
    async with app.attend(live, viewer) as sightings:  # the seat is online while the session lasts
        session = _Session(app, live, viewer, token, join, sightings)
        responses = session.run(requests)
        try:
            async for response in responses:
                yield response
        finally:
            # Closed before the presence watch is (its task reads it), and in this task.
            await responses.aclose()  # type: ignore[attr-defined]


async def _join(app: GameApp, requests: AsyncIterator[api.PlayRequest]) -> api.PlayJoin:
    """The session's first message, which must be a join and come in time."""
    try:
        async with asyncio.timeout(app.settings.play_join_timeout):
            first = await anext(requests, None)
    except TimeoutError:
        raise ServiceError(
            Code.DEADLINE_EXCEEDED,
            f"No join came within {app.settings.play_join_timeout:g} s: a Play session starts with a join.",
        ) from None
    if first is None or first.WhichOneof("message") != "join":
        raise invalid_argument("join", "The first message of a Play session must be a join.")
    return first.join


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
        # The words of the session's events, turns and errors.
        self.words = LiveAudience(live, join.locale, hides_players(live, viewer))
        self.live = live
        self.viewer = viewer
        self.token = token
        self.join = join
        self.sightings = sightings
        self.out: Mailbox[api.PlayResponse | BaseException | None] = Mailbox(QUEUE_SIZE)
        self.sent_version = max(join.from_version, 1) - 1  # every version up to this one was sent
        self.generation = generation_of(live, viewer)  # the token's, as just checked: its stream ends with it
        self.following = True
        self.commands = 0  # the commands asked so far: each one's number in its request id
        # Commands whose result waits for the events up to a version to be sent: that
        # version and the future their task waits on (woken by _sent and _stopped).
        self.waiting: list[tuple[int, asyncio.Future[None]]] = []

    async def run(self, requests: AsyncIterator[api.PlayRequest]) -> AsyncIterator[api.PlayResponse]:
        if self.sent_version == self.live.version:
            # The client has every event already (a resumed session): the game is at
            # rest, so its turn (and view) now, not after the next event.
            await self._at_rest(self.live.version)
        events = asyncio.create_task(self._forward_events())
        commands = asyncio.create_task(self._answer_commands(requests))
        presence = asyncio.create_task(self._forward_presence()) if self.join.presence else None
        # An item taken from the queue while merging but not sent yet. Its own marker,
        # not None: None is the end of the session, and must not be lost here.
        held: api.PlayResponse | BaseException | _Nothing | None = NOTHING
        try:
            while True:
                item = await self.out.get() if held is NOTHING else held
                held = NOTHING
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
                told = _version_told(message)
                if told:
                    message.receipt = self.app.receipt(self.live.game_id, told)
                yield message
        finally:
            tasks = [events, commands] if presence is None else [events, commands, presence]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _forward_events(self) -> None:
        try:
            start = max(self.join.from_version, 1)
            follow = self.app.history.follow(self.live, self.viewer, start, self.join.locale, self.generation)
            async for event, redacted in follow:
                if redacted is not None:
                    await self.out.put(api.PlayResponse(events=[redacted]))
                self._sent(event.version)
                await self._at_rest(event.version)
        except ServiceError as error:
            error.locale = self.join.locale  # the session's end, told in its language
            await self.out.put(error)
        finally:
            self.following = False
            self._wake()
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

    def _sent(self, version: int) -> None:
        self.sent_version = version
        if self.waiting:
            self._wake()

    def _wake(self) -> None:
        """Wakes the commands whose events are all sent now (all, once none follow)."""
        waiting: list[tuple[int, asyncio.Future[None]]] = []
        for version, waiter in self.waiting:
            if waiter.done():
                continue  # its task was cancelled
            if version <= self.sent_version or not self.following:
                waiter.set_result(None)
            else:
                waiting.append((version, waiter))
        self.waiting = waiting

    async def _events_sent(self, version: int) -> None:
        """Returns once the events up to `version` are sent (or no more will be)."""
        if self.sent_version >= version or not self.following:
            return
        waiter = asyncio.get_running_loop().create_future()
        self.waiting.append((version, waiter))
        await waiter

    async def _at_rest(self, version: int) -> None:
        """When the game rests at `version`: a turn if it waits for this seat, and the
        caller's view if the session asked for view updates."""
        seat = self.viewer.role is Role.SEAT
        if not (seat or self.join.view_updates):
            return
        if self.live.version < version:
            await self.app.catch_up(self.live, version)
        if self.live.version != version:
            return  # more events are on their way: the game is not at rest yet
        response = api.PlayResponse()
        legal: list[game_pb2.Command] = []
        seen: game_pb2.GameView | None = None
        if seat:
            legal, seen = self.app.turn_of(
                self.live, self.viewer, self.words.now(), with_view=self.join.views or self.join.view_updates
            )
        if self.join.view_updates:
            response.view.CopyFrom(seen if seen is not None else self.app.view_of(self.live, self.viewer))
        if legal:
            turn = response.turn
            turn.version = version
            turn.legal_commands.extend(legal)
            clock = self.app.clock_of(self.live, self.viewer)
            if clock is not None:
                turn.clock.CopyFrom(clock)
            if self.join.views and seen is not None:
                turn.view.CopyFrom(seen)
        if legal or self.join.view_updates:
            await self.out.put(response)

    async def _answer_commands(self, requests: AsyncIterator[api.PlayRequest]) -> None:
        try:
            async for request in requests:
                await self.out.put(api.PlayResponse(result=await self._play(request)))
        except ServiceError as error:  # an unreadable request ends the session
            await self.out.put(error)
        # The client is done: so is the session. (Not when cancelled: the session is
        # over then, and nobody reads a queue that may be full.)
        await self.out.put(None)

    async def _play(self, request: api.PlayRequest) -> api.PlayResult:
        if request.WhichOneof("message") != "command":
            error = invalid_argument("command", "After the join, send commands only.")
            error.locale = self.join.locale
            return api.PlayResult(error=status_of(error))
        command = request.command
        # Each command of the session is a request of its own in the logs, written when
        # its result is ready: the session's request id with the command's number, the
        # command's id and outcome (over every transport: gRPC, the WebSocket).
        self.commands += 1
        session = request_context.current()
        request_id = request_context.request_id_from(f"{session.request_id}.{self.commands}" if session else None)
        with request_context.scope(request_id=request_id, command_id=command.command_id, outcome="") as record:
            record.method = f"{record.method or 'Play'} command"
            started = time.perf_counter()
            result = await self._apply(command)
            failed = result.HasField("error")
            status = code_name(result.error.code) if failed else "OK"
            access_log.write(status, error=failed, seconds=time.perf_counter() - started)
            return result

    async def _apply(self, command: api.PlayCommand) -> api.PlayResult:
        submit = api.SubmitCommandRequest()  # set one by one: the constructor's keywords cost more
        submit.game_id = self.live.game_id
        submit.command.CopyFrom(command.command)
        submit.command_id = command.command_id
        if command.HasField("expected_version"):
            submit.expected_version = command.expected_version
        try:
            done = await self.app.moves.apply_command(submit, self.token)
        except ServiceError as error:
            error.locale = self.join.locale
            return api.PlayResult(command_id=command.command_id, error=status_of(error))
        await self._events_sent(done.last_version)  # the result comes after the events it caused
        result = api.PlayResult()
        result.command_id = done.events[0].command_id if done.events else command.command_id
        result.version = done.last_version
        result.replayed = done.replayed
        return result


def _version_told(message: api.PlayResponse) -> int:
    """The highest version `message` gives the client (0: none): its last event's, its
    result's, its turn's."""
    told = message.events[-1].version if message.events else 0
    if message.HasField("result"):
        told = max(told, message.result.version)
    if message.HasField("turn"):
        told = max(told, message.turn.version)
    return told


def _fits(message: api.PlayResponse, following: api.PlayResponse) -> bool:
    """Whether `following` can join `message`, to be read as events, then a result, then
    a turn and the view. Events after a result, a turn or a view start a new message; a
    result queued after the turn may go before it (the result changes nothing, and its
    events came first)."""
    if following.events and (message.HasField("result") or message.HasField("turn") or message.HasField("view")):
        return False
    if len(message.events) + len(following.events) > PAGE_EVENTS:
        return False
    if following.HasField("result") and message.HasField("result"):
        return False
    if following.HasField("view") and message.HasField("view"):
        return False
    for part in ("presence", "rematch"):  # a newer one replaces, never merges into, the one before
        if following.HasField(part) and message.HasField(part):
            return False
    return not (following.HasField("turn") and message.HasField("turn"))
