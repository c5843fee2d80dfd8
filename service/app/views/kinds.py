"""Use cases of the kinds of game: what a renderer needs to know before any game is
played (GetGameKind, ListGameKinds), from each engine and its describer, in the
caller's language. A kind's facts never change while the process runs, so each is
built once per language."""

from __future__ import annotations

from ludotheque.text.v1.description_pb2 import Description
from ludotheque.v1 import game_kind_pb2, game_service_pb2

from engines.contract import SeatInfo
from engines.describers import DESCRIBERS
from engines.registry import ENGINES, AnyEngine
from service.app.model import envelopes
from service.app.model.errors import Code, ServiceError
from service.app.words.catalogs import catalogs


def game_kind(engine: AnyEngine) -> game_kind_pb2.GameKind:
    """The kind's facts, each description with its key only (no language yet)."""
    kind = engine.kind
    describer = DESCRIBERS[kind]
    message = game_kind_pb2.GameKind(
        kind=kind,
        name=Description(key=f"{kind}.name"),
        summary=Description(key=f"{kind}.summary"),
        min_seats=engine.min_seats,
        max_seats=engine.max_seats,
        rules_version=engine.rules_version,
        seat_secrets=describer.seat_secrets,
    )
    for bot in sorted(engine.bots):
        message.bots.add(name=bot, description=Description(key=f"bot.{bot}"))
    for field in engine.options_type.DESCRIPTOR.fields:
        option = message.options.add(
            field=field.name, json_name=field.json_name, description=Description(key=f"{kind}.option.{field.name}")
        )
        if field.enum_type is not None:
            for value in field.enum_type.values:
                about = Description(key=f"{kind}.option.{field.name}.{value.name}")
                option.values.add(name=value.name, description=about)
    seats = [SeatInfo()] * engine.min_seats
    message.defaults.CopyFrom(envelopes.options(kind, engine.resolve_options(engine.options_type(), seats)))
    for name, options in describer.presets():
        preset = message.presets.add(name=name, description=Description(key=f"{kind}.preset.{name}"))
        preset.options.CopyFrom(envelopes.options(kind, options))
    for code in describer.rule_codes:
        message.rule_codes.add(code=code, description=Description(key=f"{kind}.rule.{code}"))
    getattr(message, kind).CopyFrom(describer.material())
    return message


class Kinds:
    def __init__(self) -> None:
        # (kind, language) -> the answer; built on first use, never changed after.
        self._built: dict[tuple[str, str], game_kind_pb2.GameKind] = {}

    async def get_game_kind(self, request: game_service_pb2.GetGameKindRequest, token: str) -> game_kind_pb2.GameKind:
        engine = ENGINES.get(request.kind)
        if engine is None:
            known = ", ".join(sorted(ENGINES))
            raise ServiceError(Code.NOT_FOUND, f"There is no game kind {request.kind!r}: this server plays {known}.")
        return self.kind(engine, request.locale)

    async def list_game_kinds(
        self, request: game_service_pb2.ListGameKindsRequest, token: str
    ) -> game_service_pb2.ListGameKindsResponse:
        return game_service_pb2.ListGameKindsResponse(
            kinds=[self.kind(engine, request.locale) for _, engine in sorted(ENGINES.items())]
        )

    def kind(self, engine: AnyEngine, locale: str) -> game_kind_pb2.GameKind:
        """The kind in the language that best fits `locale` (shared: not to be changed)."""
        words = catalogs().words(locale)
        built = self._built.get((engine.kind, words.locale))
        if built is None:
            built = game_kind(engine)
            words.fill(built)
            self._built[(engine.kind, words.locale)] = built
        return built
