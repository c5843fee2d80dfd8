"""The describer of every kind this server plays, by name (engines/describing.py)."""

from __future__ import annotations

from engines.describing import Describer
from engines.mooki.describe import DESCRIBER as MOOKI
from engines.picnic.describe import DESCRIBER as PICNIC
from engines.pirates.describe import DESCRIBER as PIRATES

DESCRIBERS: dict[str, Describer] = {describer.kind: describer for describer in (MOOKI, PIRATES, PICNIC)}
