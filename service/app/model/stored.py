"""The use cases' side of the event store: its errors as the service's, stored events parsed."""

from __future__ import annotations

from google.protobuf.message import DecodeError
from ludotheque.v1 import game_pb2

from service.app.model.errors import Code, ServiceError, game_lost, invalid_argument, not_found, unavailable
from service.store.base import (
    CommandIdReused,
    GameLost,
    GameNotFound,
    InvalidCursor,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    SubscriberTooSlow,
)


def parse_event(item: StoredEvent) -> game_pb2.Event:
    try:
        return game_pb2.Event.FromString(item.data)
    except DecodeError as error:
        raise ServiceError(Code.INTERNAL, f"stored event {item.version} is corrupt") from error


class store_errors:  # noqa: N801 (used as `with store_errors():`, as the function it was)
    """Maps the store's errors to the service's (a context manager; a class, not a
    generator: every move enters a few, and a generator's costs more)."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> None:
        if not isinstance(error, StoreError):
            return
        if isinstance(error, StoreUnavailable):
            raise unavailable(f"The event store cannot be reached: {error}") from error
        if isinstance(error, CommandIdReused):
            raise ServiceError(Code.ALREADY_EXISTS, f"{error}: use a new command_id for a new move.") from error
        if isinstance(error, SubscriberTooSlow):
            raise ServiceError(
                Code.RESOURCE_EXHAUSTED, "The event stream fell too far behind; resume from the last version received."
            ) from error
        if isinstance(error, GameLost):
            raise game_lost(error.game_id) from error
        if isinstance(error, GameNotFound):
            raise not_found(error.game_id) from error
        if isinstance(error, InvalidCursor):
            raise invalid_argument("page_token", "page_token must come from a previous ListGames.") from error
