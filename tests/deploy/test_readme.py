"""deploy/README.md says what works: its Python example balances over a live server, and
every chart value it names exists."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.deploy.chart import CHART
from tests.support.server import ROOT, running_server

README = (ROOT / "deploy" / "README.md").read_text()


def test_the_client_side_balancing_example_works() -> None:
    (block,) = re.findall(r"```python\n(.*?)```", README, re.S)
    block = "\n".join(line.removeprefix("   ") for line in block.splitlines())
    with running_server() as server:
        code = re.sub(r'"dns:///[^"]+"', f'"dns:///127.0.0.1:{server.grpc_port}"', block)
        names: dict[str, Any] = {}
        exec(compile(code, "deploy/README.md", "exec"), names)
        lobby = names["lobby"]
        created = lobby.create_game("mooki", ["Cléo", {"name": "Robin", "bot": "greedy"}])
        assert lobby.get_game(created.game_id).version >= 1
        lobby.close()
        names["channel"].close()


def resolves(values: Any, path: list[str]) -> bool:
    for key in path:
        if not isinstance(values, dict) or key not in values:
            return False
        values = values[key]
    return True


def test_every_value_the_readme_names_is_a_value_of_the_chart() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    named = set(re.findall(r"`([a-z][A-Za-z]*(?:\.[a-zA-Z]+)+)(?:=[^`]*)?`", README))
    named |= set(re.findall(r"--set ([a-z][A-Za-z]*(?:\.[a-zA-Z]+)*)=", README))
    named = {name for name in named if name.split(".")[0] in values}
    assert len(named) > 20
    assert [name for name in sorted(named) if not resolves(values, name.split("."))] == []
