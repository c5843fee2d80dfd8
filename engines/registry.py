"""The game kinds this server plays, by name."""

from __future__ import annotations

from typing import Any

from engines.contract import Engine
from engines.mooki import ENGINE as MOOKI
from engines.picnic import ENGINE as PICNIC
from engines.pirates import ENGINE as PIRATES

AnyEngine = Engine[Any, Any, Any, Any, Any]

ENGINES: dict[str, AnyEngine] = {MOOKI.kind: MOOKI, PIRATES.kind: PIRATES, PICNIC.kind: PICNIC}


def get_engine(kind: str) -> AnyEngine | None:
    return ENGINES.get(kind)
