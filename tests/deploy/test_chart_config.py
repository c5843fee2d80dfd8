"""The chart and `ludotheque serve` agree. The test reads both sides: the rendered
Deployment (command, environment as the kubelet builds it, ports, probes) and the
server's own argument parser and settings (service/cli/config.py SETTINGS, read now,
so a setting added later is known here too); then it runs the server and the bundled
Redis as the chart configures them and asks them what the probes ask."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.cli import build_parser
from service.cli.config import SETTINGS, Config, from_arguments
from service.cli.serve import SERVICE_NAME
from tests.deploy.chart import (
    CHART,
    RELEASE,
    VALUE_SETS,
    Object,
    Rendered,
    container_environment,
    render,
    server_container,
)
from tests.support.redis import START_TIMEOUT, free_port
from tests.support.rest import Rest
from tests.support.server import ROOT, running_server
from tests.support.waiting import wait_until

# The names the server's gRPC health service answers for (service/cli/serve.py).
HEALTH_NAMES = {"", SERVICE_NAME}
# What the HTTP port answers while the process runs (docs/OPERATIONS.md, Observability).
LIVENESS_PATHS = {"/healthz"}
# The chart's only defaults that are not the server's, and why.
CHART_DEFAULTS = {"logFormat": "json"}  # a pod has no terminal; say what log collectors read outright


def snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def serve_config(r: Rendered) -> Config:
    """The Config `ludotheque serve` builds in the rendered server container."""
    container = server_container(r)
    command = container["command"] + container.get("args", [])
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts.get(command[0]) == "service.cli:main", f"{command[0]} is not the ludotheque command"
    args = build_parser().parse_args(command[1:])  # an unknown flag exits here
    assert args.command == "serve"
    environment = container_environment(r, container)
    settings = {setting.env for setting in SETTINGS}
    unknown = sorted(name for name in environment if name.startswith("LUDOTHEQUE_") and name not in settings)
    assert unknown == [], f"the server knows no {unknown}"
    return from_arguments(args, environment)  # a value it cannot read exits here


def ports(container: Object) -> dict[str, int]:
    return {port["name"]: port["containerPort"] for port in container["ports"]}


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_the_deployment_runs_what_serve_accepts(value_set: str) -> None:
    r = render(VALUE_SETS[value_set])
    config = serve_config(r)
    container = server_container(r)
    assert ports(container) == {"grpc": config.grpc.port, "http": config.http.port}
    assert config.server.host == "0.0.0.0"  # the kubelet probes the pod's address
    readiness = container["readinessProbe"]["grpc"]
    assert readiness["port"] == config.grpc.port and readiness["service"] in HEALTH_NAMES
    liveness = container["livenessProbe"]
    if "grpc" in liveness:
        assert liveness["grpc"]["port"] == config.grpc.port and liveness["grpc"]["service"] in HEALTH_NAMES
    else:
        assert ports(container)[liveness["httpGet"]["port"]] == config.http.port
        assert liveness["httpGet"]["path"] in LIVENESS_PATHS
    pod = r.one("Deployment")["spec"]["template"]["spec"]
    pause = int(container.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", ["sleep", "0"])[1])
    assert pod["terminationGracePeriodSeconds"] > pause + math.ceil(config.server.shutdown_grace)
    assert len(config.access.secret.encode()) >= 32
    store = VALUE_SETS[value_set].get("store", {})
    if store.get("mode", "bundled") == "bundled":
        (service,) = [s for s in r.of_kind("Service") if s["metadata"]["name"] == f"{RELEASE}-ludotheque-redis"]
        password = container_environment(r, container)["REDIS_PASSWORD"]  # the bundled Redis's, from its Secret
        address = f"{service['metadata']['name']}:{service['spec']['ports'][0]['port']}"
        assert config.store.url == f"redis://:{password}@{address}/0"
    elif store["mode"] == "memory":
        assert config.store.url == "memory"
    else:
        assert config.store.url.startswith(("redis://", "redis+cluster://"))


def test_limits_and_retention_reach_the_server_and_its_exports_a_volume() -> None:
    r = render(VALUE_SETS["limits-and-retention"])
    config = serve_config(r)
    retention = config.app.retention
    assert config.app.event_limits == {"pirates": 20000, "picnic": 5000}
    assert (config.app.snapshot_interval, retention.finished_ttl, retention.abandoned_ttl) == (50, 86400, 0)
    assert (config.http.header_timeout, config.http.idle_timeout, retention.interval) == (5, 30, 30.5)
    assert (config.grpc.max_streams_per_connection, config.app.max_followers) == (20, 200)
    pod = r.one("Deployment")["spec"]["template"]["spec"]
    (mount,) = [m for m in server_container(r)["volumeMounts"] if m["mountPath"] == retention.export_dir]
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["persistentVolumeClaim"] == {"claimName": "expired-games"}
    assert all(
        v["name"] != "expired-games" for v in render({}).one("Deployment")["spec"]["template"]["spec"]["volumes"]
    )


def test_the_charts_settings_are_settings_of_serve_with_their_types_and_defaults() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())["properties"]["config"]["properties"]
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())["config"]
    settings = {setting.name: setting for setting in SETTINGS}
    json_types = {int: "integer", float: "number", str: "string", bool: "boolean"}
    for key, rule in schema.items():
        setting = settings.get(snake(key))
        assert setting is not None, f"config.{key}: `ludotheque serve` has no --{snake(key).replace('_', '-')}"
        assert rule["type"] == json_types[setting.type], f"config.{key}"
        wanted = CHART_DEFAULTS.get(key, setting.default)
        assert defaults[key] == wanted, f"config.{key}: the chart's default is not the server's"


@contextmanager
def bundled_redis(r: Rendered) -> Iterator[tuple[int, Object, dict[str, str]]]:
    """The bundled Redis as the StatefulSet runs it: its command, with the ConfigMap's
    redis.conf, a data directory and a free port in place of the pod's, and $(NAME)
    replaced from its environment (its password) as the kubelet does; with that
    environment."""
    container = r.one("StatefulSet")["spec"]["template"]["spec"]["containers"][0]
    environment = container_environment(r, container)
    directory = Path(tempfile.mkdtemp(prefix="ludotheque-chart-redis-"))
    (directory / "data").mkdir()
    (directory / "redis.conf").write_text(r.one("ConfigMap", f"{RELEASE}-ludotheque-redis")["data"]["redis.conf"])
    port = free_port()
    places = {"/etc/redis/redis.conf": str(directory / "redis.conf"), "/data": str(directory / "data")}
    command = [places.get(word, word) for word in container["command"]]
    command = [re.sub(r"\$\((\w+)\)", lambda named: environment[named.group(1)], word) for word in command]
    command[command.index("--port") + 1] = str(port)
    log = directory / "redis.log"
    process = subprocess.Popen([*command, "--logfile", str(log)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(
            lambda: process.poll() is not None or (log.exists() and "Ready to accept" in log.read_text()),
            START_TIMEOUT,
            "the bundled Redis",
        )
        assert process.poll() is None, log.read_text()
        yield port, container, environment
    finally:
        process.kill()
        process.wait()
        shutil.rmtree(directory, ignore_errors=True)


def redis_config(port: int, name: str, environment: dict[str, str]) -> str:
    """A setting of the Redis on `port`, asked by redis-cli in the container's environment."""
    done = subprocess.run(
        ["redis-cli", "-p", str(port), "config", "get", name],
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], **environment},
    )
    return done.stdout.splitlines()[1]


def test_the_probes_answer_when_the_server_runs_as_the_chart_says() -> None:
    r = render(VALUE_SETS["bundled-redis"])
    with bundled_redis(r) as (redis_port, redis_container, redis_environment):
        assert redis_config(redis_port, "appendonly", redis_environment) == "yes"
        assert redis_config(redis_port, "appendfsync", redis_environment) == "always"
        assert redis_config(redis_port, "maxmemory-policy", redis_environment) == "noeviction"
        assert redis_config(redis_port, "maxmemory", redis_environment) == str(2 * 1024**3)
        assert redis_config(redis_port, "requirepass", redis_environment) == redis_environment["REDIS_PASSWORD"]
        redis_ready = redis_container["readinessProbe"]["exec"]["command"]
        assert redis_ready[:2] == ["sh", "-c"]
        script = redis_ready[2].replace(f"-p {redis_container['ports'][0]['containerPort']}", f"-p {redis_port}")
        probe_environment = {"PATH": os.environ["PATH"], **redis_environment}  # REDISCLI_AUTH: its password
        assert subprocess.run(["sh", "-c", script], env=probe_environment).returncode == 0, shlex.join(redis_ready)
        without = {"PATH": os.environ["PATH"]}
        assert subprocess.run(["sh", "-c", script], env=without, capture_output=True).returncode != 0, "no password"

        container = server_container(r)
        environment = container_environment(r, container)
        # The Service's name is not here: its address, with the password the Secret gives.
        service = f"{RELEASE}-ludotheque-redis:6379"
        environment["LUDOTHEQUE_STORE"] = environment["LUDOTHEQUE_STORE"].replace(service, f"127.0.0.1:{redis_port}")
        for local in ("LUDOTHEQUE_HOST", "LUDOTHEQUE_GRPC_PORT", "LUDOTHEQUE_HTTP_PORT"):
            del environment[local]  # loopback and free ports: other servers run on this machine
        with running_server(env=environment) as server, grpc.insecure_channel(server.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            probes = json.loads((CHART / "values.schema.json").read_text())["properties"]["probes"]["properties"]
            allowed = probes["readiness"]["properties"]["grpcService"]["enum"]  # what values may name
            for name in {container["readinessProbe"]["grpc"]["service"], *allowed}:
                # As the kubelet does, asked again: on a busy machine a probe of a Redis that
                # fsyncs every write may take over its second, and say NOT_SERVING once.
                wait_until(lambda: _serving(health, name), 10, f"{name or 'the server'} to answer SERVING")  # noqa: B023
            liveness = container["livenessProbe"]["httpGet"]
            assert Rest(server.http).get(liveness["path"]).status == 200
            assert Rest(server.http).get(container["startupProbe"]["httpGet"]["path"]).status == 200
            assert Rest(server.http).get("/readyz").status == 200


def _serving(health: health_pb2_grpc.HealthStub, name: str) -> bool:
    reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=10)
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
