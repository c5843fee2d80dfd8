"""The container image (deploy/docker/Dockerfile), tested without Docker: its shape (multi
-stage, nothing built in the final stage, an unprivileged user, `ludotheque serve`, both
ports), its build context, its agreement with the chart, and a replay of its build and
entry point on this machine that must serve and answer health checks."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import tomllib
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ludotheque import Client

from service.cli import build_parser
from service.cli.config import SETTINGS, from_arguments
from tests.deploy.chart import render, server_container
from tests.deploy.dockerfile import PREFIX, Image, Stage, context_files, env_of, parse, snapshot
from tests.support.kinds import SERVED_KINDS
from tests.support.rest import Rest
from tests.support.server import ROOT

# What the final stage may run: creating its user. Installing anything belongs to the build stage.
FINAL_STAGE_COMMANDS = {"groupadd", "useradd"}


def stages() -> tuple[Stage, Stage]:
    _, found = parse()
    assert len(found) >= 2, "a multi-stage build: the final image gets the built environment, not the tools"
    return found[0], found[-1]


def final_env() -> dict[str, str]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
    for instruction in stages()[1].all("ENV"):
        env.update(env_of(instruction, env))
    return env


def user_and_group() -> tuple[int, int]:
    (*_, user) = stages()[1].all("USER")
    uid, _, gid = user.arguments[0].partition(":")
    assert uid.isdigit() and gid.isdigit(), "USER uid:gid, numeric: Kubernetes can check runAsNonRoot"
    return int(uid), int(gid)


def test_the_image_is_multi_stage_unprivileged_and_runs_serve() -> None:
    build, final = stages()
    assert final.base == build.base and "slim" in final.base  # the same Python the environment was built for
    assert not final.all("ADD")
    for run in final.all("RUN"):
        commands = {part.split()[0] for part in run.arguments[0].split("&&")}
        assert commands <= FINAL_STAGE_COMMANDS, f"the final stage runs {commands - FINAL_STAGE_COMMANDS}"
    copied_from_build = [c for c in final.all("COPY") if c.flags.get("from") == build.name]
    assert [c.arguments for c in copied_from_build] == [[f"{PREFIX}/venv", f"{PREFIX}/venv"]]
    uid, gid = user_and_group()
    assert uid != 0 and gid != 0
    (entrypoint,) = final.all("ENTRYPOINT")
    assert entrypoint.arguments == ["ludotheque", "serve"]
    assert not final.all("CMD")


def test_the_image_is_configured_by_the_servers_own_environment_variables() -> None:
    env = final_env()
    settings = {setting.env for setting in SETTINGS}
    ours = {name for name in env if name.startswith("LUDOTHEQUE_")}
    # engines/data.py: where the games' data is; service/api/web.py: the web app's bundle
    assert ours - settings == {"LUDOTHEQUE_SEEDS", "LUDOTHEQUE_WEB_ROOT"}
    (seeds,) = [c for c in stages()[1].all("COPY") if c.arguments[0].rstrip("/") == "seeds"]
    assert env["LUDOTHEQUE_SEEDS"] == seeds.arguments[1].rstrip("/")
    (bundle,) = [c for c in stages()[1].all("COPY") if c.flags.get("from") == "web"]
    assert env["LUDOTHEQUE_WEB_ROOT"] == bundle.arguments[1].rstrip("/")
    config = from_arguments(build_parser().parse_args(["serve"]), env)
    exposed = {int(port) for c in stages()[1].all("EXPOSE") for port in c.arguments}
    assert exposed == {config.grpc.port, config.http.port}
    assert config.logs.log_format == "json"  # what log collectors read, with or without a terminal
    assert config.server.host == "0.0.0.0"  # reachable from outside the container


def test_every_path_the_dockerfile_copies_is_in_the_build_context_and_nothing_else() -> None:
    files = context_files()
    used: set[str] = set()
    _, every_stage = parse()
    for stage in every_stage:
        for copy in stage.all("COPY"):
            if "from" in copy.flags:
                continue
            for source in copy.arguments[:-1]:
                source = source.rstrip("/")
                found = [f for f in files if f == source or f.startswith(source + "/")]
                assert found, f"COPY {source}: not in the build context (a clean checkout, less the .dockerignore)"
                used.update(found)
    assert set(files) == used, "the .dockerignore sends files no COPY uses"
    assert not [f for f in files if "__pycache__" in f or f.startswith("seeds/replays/")]


def test_the_chart_runs_the_image_as_it_is_built() -> None:
    container = server_container(render())
    (entrypoint,) = stages()[1].all("ENTRYPOINT")
    assert container["command"] == entrypoint.arguments
    pod = render().one("Deployment")["spec"]["template"]["spec"]
    assert (pod["securityContext"]["runAsUser"], pod["securityContext"]["runAsGroup"]) == user_and_group()
    exposed = {int(port) for c in stages()[1].all("EXPOSE") for port in c.arguments}
    assert {port["containerPort"] for port in container["ports"]} == exposed
    # The default image tag is the chart's appVersion: the server's version.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert container["image"].endswith(f":{project['version']}")


def world_executable(program: str) -> bool:
    """Whether another user may run `program` (every directory above it searchable)."""
    path = Path(os.path.realpath(program))
    return all(os.stat(parent).st_mode & 0o001 for parent in path.parents) and bool(os.stat(path).st_mode & 0o001)


def test_the_image_built_from_the_context_serves_games_and_answers_health_checks(image: Image) -> None:
    env = {name: image.host_text(value) for name, value in final_env().items()}
    # Loopback and free ports: other servers run on this machine.
    env.update({"LUDOTHEQUE_HOST": "127.0.0.1", "LUDOTHEQUE_GRPC_PORT": "0", "LUDOTHEQUE_HTTP_PORT": "0"})
    env["LUDOTHEQUE_BOT_GAME_RATE"] = "3"  # games of bots only, below, for anyone (by default: the admin only)
    program = shutil.which(image.entrypoint[0], path=env["PATH"])
    assert program is not None and Path(program).is_relative_to(image.root), program
    uid, gid = user_and_group()
    # As the image's user when we can (root here, and an interpreter that user may run).
    as_user = os.geteuid() == 0 and world_executable(Path(program).read_text().splitlines()[0][2:])
    before = snapshot(image.root)
    with tempfile.TemporaryFile("w+") as log:
        server = subprocess.Popen(
            [program, *image.entrypoint[1:]],
            cwd=image.host_path(image.workdir),
            env=env,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            user=uid if as_user else None,
            group=gid if as_user else None,
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            log.seek(0)
            assert line, f"the image's entry point did not start:\n{log.read()}"
            announced = json.loads(line)
            target, rest = f"127.0.0.1:{announced['grpc_port']}", Rest(f"http://127.0.0.1:{announced['http_port']}")
            assert rest.get("/healthz").status == 200
            assert rest.get("/readyz").status == 200
            assert rest.get("/openapi.json").json["openapi"].startswith("3.")
            page = rest.get("/")  # the web app, built in the image
            assert page.status == 200 and b'<script type="module" src="/assets/main-' in page.body, page.body[:300]
            with grpc.insecure_channel(target) as channel:
                reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
            with Client(target) as lobby:  # every game's data is in the image
                for kind in SERVED_KINDS:
                    created = lobby.create_game(kind, [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}])
                    assert lobby.get_game(created.game_id).version > 1
            server.send_signal(signal.SIGTERM)
            assert server.wait(30) == 0  # drained and stopped
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    assert snapshot(image.root) == before, "the server wrote into its image (the root filesystem is read-only)"


def test_the_image_carries_the_license_it_is_distributed_under(image: Image) -> None:
    assert image.host_path(f"{PREFIX}/LICENSE").read_text() == (ROOT / "LICENSE").read_text()
