"""The use cases' side of the event store: its errors as the service's, stored events parsed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from google.protobuf.message import DecodeError
from ludotheque.v1 import game_pb2

from service.app.errors import Code, ServiceError, invalid_argument, not_found, unavailable
from service.store.base import (
    CommandIdReused,
    GameNotFound,
    InvalidCursor,
    StoredEvent,
    StoreUnavailable,
    SubscriberTooSlow,
)


def parse_event(item: StoredEvent) -> game_pb2.Event:
    try:
        return game_pb2.Event.FromString(item.data)
    except DecodeError as error:
        raise ServiceError(Code.INTERNAL, f"stored event {item.version} is corrupt") from error


@contextmanager
def store_errors() -> Iterator[None]:
    """Maps the store's errors to the service's."""
    try:
        yield
    except StoreUnavailable as error:
        raise unavailable(f"The event store cannot be reached: {error}") from error
    except CommandIdReused as error:
        raise ServiceError(Code.ALREADY_EXISTS, f"{error}: use a new command_id for a new move.") from error
    except SubscriberTooSlow as error:
        raise ServiceError(
            Code.RESOURCE_EXHAUSTED, "The event stream fell too far behind; resume from the last version received."
        ) from error
    except GameNotFound as error:
        raise not_found(error.game_id) from error
    except InvalidCursor as error:
        raise invalid_argument("page_token", "page_token must come from a previous ListGames.") from error
