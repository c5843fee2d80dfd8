"""docs/OPERATIONS.md stays true: a runbook section for every alert of the chart and an alert
for every section; every command it shows exists (the `ludotheque` ones parse, the chart
values and Kubernetes objects they name are the chart's, the Redis commands are Redis's);
every setting, metric, Redis key and link it names exists, and its metrics table lists every
metric the server exports; the READMEs link to it."""

from __future__ import annotations

import re
import shlex
from functools import cache
from typing import Any

import yaml

from service.app.observe.metrics import Metrics
from service.cli import build_parser
from service.cli.config import SETTINGS
from service.store.redis_keys import Keys
from tests.deploy.chart import CHART, EXISTING_SECRETS, Rendered, render
from tests.deploy.test_alerts import EXTERNAL, rules
from tests.deploy.test_dashboard import declared_labels
from tests.support.redis import running_redis
from tests.support.server import ROOT

DOC = (ROOT / "docs" / "OPERATIONS.md").read_text()
# Settings the runbook names that come with work merged separately, and where from.
PENDING: dict[str, str] = {}
# Besides the cluster's tools: the server on one machine (redis-server, ludotheque), its image (docker).
TOOLS = {"kubectl", "helm", "jq", "grep", "sort", "uniq", "head", "base64", "openssl", "date", "ludotheque", "export"}
TOOLS |= {"redis-server", "docker"}
IN_CONTAINERS = {"redis-cli", "redis-server", "rm"}
RESTORE_POD = "redis-restore"  # the one-off pod the page defines


def sections(level: str) -> list[str]:
    return re.findall(rf"^{level} (.+)$", DOC, re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def shell_commands() -> list[list[str]]:
    """Every simple command of the page's sh blocks, as words: pipelines and `$( )` split."""
    found: list[list[str]] = []
    for block in re.findall(r"```sh\n(.*?)```", DOC, re.S):
        text = re.sub(r"\\\n\s*", " ", block)
        for line in text.splitlines():
            line = line.split(" #", 1)[0].strip()
            if not line or line.startswith("#"):
                continue
            for inner in re.findall(r"\$\(([^()]*)\)", line):
                found.extend(_simple(inner))
            found.extend(_simple(re.sub(r"\$\([^()]*\)", "SUBSTITUTED", line)))
    return found


def _simple(line: str) -> list[list[str]]:
    """The commands of a line, split at pipes, `&&` and `;` outside quotes."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;")
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in ("|", "||", "&&", ";"):
            commands.append([])
        elif commands[-1] or not re.match(r"^[A-Z_]+=", token):  # not an assignment before the command
            commands[-1].append(token)
    return [words for words in commands if words]


@cache
def chart() -> Rendered:
    return render()


def names(kind: str) -> set[str]:
    return {o["metadata"]["name"] for o in chart().of_kind(kind)}


def value_exists(path: str) -> bool:
    node: Any = yaml.safe_load((CHART / "values.yaml").read_text())
    for key in path.split("."):
        if isinstance(node, dict) and not node and key:
            return True  # a free-form map (labels...): any key
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def test_every_alert_has_its_runbook_and_every_runbook_its_alert() -> None:
    alerts = {rule["alert"] for rule in rules() if "alert" in rule}
    alert_part = DOC.split("\n## Alerts\n", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^### (\S+)$", alert_part, re.M)
    assert sorted(documented) == sorted(alerts)
    for section in re.split(r"^### ", alert_part, flags=re.M)[1:]:
        for part in ("**What it means.**", "**Confirm.**", "**Recover.**"):
            assert part in section, f"{section.split()[0]}: no {part}"
        assert "```sh" in section, f"{section.split()[0]}: no command to confirm it"


def test_every_link_inside_the_page_and_beside_it_resolves() -> None:
    anchors = {slug(heading) for level in ("##", "###") for heading in sections(level)}
    for anchor in re.findall(r"\]\(#([^)]+)\)", DOC):
        assert anchor in anchors, anchor
    for path in re.findall(r"\]\(\.\./([^)#]+)\)", DOC):
        assert (ROOT / path).exists(), path
    for rule in rules():
        assert rule["annotations"]["runbook_url"].split("#")[1] in anchors
    for readme in ("README.md", "deploy/README.md"):
        assert "docs/OPERATIONS.md" in (ROOT / readme).read_text(), f"{readme} does not link the runbook"


def test_every_ludotheque_command_parses() -> None:
    commands = [words for words in shell_commands() if words[0] == "ludotheque"]
    assert {words[1] for words in commands} >= {"export", "verify", "replay"}
    for words in commands:
        build_parser().parse_args(words[1:])  # an unknown command or flag exits here


def test_every_tool_is_expected_and_every_helm_value_exists() -> None:
    for words in shell_commands():
        assert words[0] in TOOLS, f"unexpected command {shlex.join(words)}"
        if words[0] == "helm":
            for index, word in enumerate(words[:-1]):
                if word == "--set":
                    assert value_exists(words[index + 1].split("=", 1)[0]), words[index + 1]
            if words[1] in ("upgrade", "install"):
                assert (ROOT / words[3]).resolve() == CHART
    named = set(re.findall(r"`([a-z][A-Za-z]*(?:\.[a-zA-Z]+)+)(?:=[^`]*)?`", DOC))
    top = set(yaml.safe_load((CHART / "values.yaml").read_text()))
    chart_values = {name for name in named if name.split(".")[0] in top}
    assert len(chart_values) > 10
    assert [name for name in sorted(chart_values) if not value_exists(name)] == []


def test_every_kubernetes_object_and_container_named_is_the_charts() -> None:
    statefulset, deployment = names("StatefulSet"), names("Deployment")
    pods = {f"{name}-0" for name in statefulset} | {RESTORE_POD}
    secrets = names("Secret") | set(EXISTING_SECRETS)
    containers = {c["name"] for t in chart().pod_templates() for c in t["spec"]["containers"]}
    labels = {(k, v) for t in chart().pod_templates() for k, v in t["metadata"]["labels"].items()}
    kinds = {"deployment": deployment, "statefulset": statefulset, "service": names("Service"), "pod": pods}
    for words in (w for w in shell_commands() if w[0] == "kubectl"):
        text = shlex.join(words)
        assert words[1:3] == ["-n", "games"] or words[1] == "drain", text
        for kind, name in re.findall(r"\b(deployment|statefulset|service|pod)/([a-z0-9-]+)", text):
            assert name in kinds[kind], text
        if words[3] in ("exec", "cp"):
            after = words[4 : words.index("--")] if "--" in words else words[4:]
            places = [w for i, w in enumerate(after) if not w.startswith("-") and after[i - 1] != "-c"]
            for place in places:
                pod = place.split(":")[0] if ":" in place else place
                assert pod in pods or place.startswith("./") or pod.startswith(tuple(deployment)), text
        if "-c" in words:
            assert words[words.index("-c") + 1] in containers, text
        if "-l" in words:
            for pair in words[words.index("-l") + 1].split(","):
                assert tuple(pair.split("=", 1)) in labels, text
        if "secret" in words and "get" in words:
            assert words[words.index("secret") + 1] in secrets, text
        if "delete" in words and "pod" in words:
            assert (
                words[words.index("pod") + 1].startswith(tuple(f"{name}-" for name in deployment))
                or RESTORE_POD in words
            )


def test_every_redis_command_named_is_one_redis_has() -> None:
    in_containers = []
    for words in (w for w in shell_commands() if w[0] == "kubectl" and "--" in w):
        inside = words[words.index("--") + 1 :]
        assert inside[0] in IN_CONTAINERS, shlex.join(words)
        if inside[0] == "redis-cli":
            options = 2 if inside[1] == "-p" else 0
            in_containers.append(inside[1 + options :])
    assert len(in_containers) > 10
    with running_redis() as redis:
        for command in in_containers:
            name = command[0].lower()
            info = redis.command("COMMAND", "INFO", name)
            assert isinstance(info, dict) and name in info, f"Redis has no command {command[0]}"


def test_every_setting_metric_and_key_named_exists() -> None:
    variables = set(re.findall(r"\bLUDOTHEQUE_[A-Z_]+\b", DOC))
    known = {setting.env for setting in SETTINGS}
    assert variables - known == set(PENDING), "the page names settings the server does not have"
    metrics = set(re.findall(r"\b(?:ludotheque|grpc_server)_[a-z_]+\b", DOC))
    declared = set(declared_labels()) | {metric.removesuffix("_total") for metric in declared_labels()}
    exported = (
        declared
        | set(EXTERNAL)
        | {collector._name for collector in vars(Metrics()).values() if hasattr(collector, "_name")}
    )
    assert metrics and metrics <= exported, metrics - exported
    keys = Keys()
    game = "<game_id>"
    for key in (keys.events(game), keys.meta(game), keys.commands(game), keys.snapshots(game)):
        assert f"`{key}`" in DOC, key
    for key in (keys.moves(game), keys.limit("<key>"), keys.mark("<key>")):
        assert f"`{key}`" in DOC, key
    for slot_key in (keys.filing(0), keys.probe(0)):  # one per slot: named by its tag
        assert f"`{slot_key.split('{')[0]}{{<slot tag>}}`" in DOC, slot_key
    assert keys.index_prefix in DOC


def test_the_metrics_table_lists_every_metric_the_server_exports() -> None:
    rows = set(re.findall(r"^\| `((?:ludotheque|grpc_server)_[a-z_]+)` \|", DOC, re.M))
    exported = {collector._name for collector in vars(Metrics()).values() if hasattr(collector, "_name")}
    assert {row.removesuffix("_total") for row in rows} == exported
