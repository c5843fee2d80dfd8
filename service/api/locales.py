"""The caller's language: a request's own `locale` field, else the call's
Accept-Language header (HTTP) or `accept-language` metadata (gRPC). Transports copy
the header into requests that name no locale; the use cases choose the language
(service/app/words/catalogs.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf.message import Message

HEADER = "accept-language"


def accept_language(metadata: Iterable[tuple[str, Any]] | None) -> str:
    """The Accept-Language value among a call's headers or metadata; "" when none."""
    for key, value in metadata or ():
        if key.lower() == HEADER:
            return value.decode(errors="replace") if isinstance(value, bytes) else str(value)
    return ""


def fill_locale(request: Message, accept: str) -> Message:
    """Sets `request.locale` (a Play request: its join's) from `accept` when the
    request names no locale itself. A header that is not printable ASCII (language tags
    are; other bytes come undecoded) is ignored: the default language answers."""
    if not accept or not (accept.isascii() and accept.isprintable()):
        return request
    target: Message | None = request
    if "locale" not in request.DESCRIPTOR.fields_by_name:
        target = next(
            (
                value
                for field, value in request.ListFields()
                if field.message_type is not None
                and not field.is_repeated
                and "locale" in field.message_type.fields_by_name
            ),
            None,
        )
    if target is not None and not getattr(target, "locale"):  # noqa: B009 - a field of any request type
        target.locale = accept  # type: ignore[attr-defined]
    return request
