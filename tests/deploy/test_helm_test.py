"""`helm test` plays a move through the Service, and the bundled Redis asks for its
password: the chart's test Pod and Redis, as rendered, run for real here. The Pod's
command (files/helm-test-play.py) runs with the Pod's environment against a real server
whose store is a real redis-server started with the StatefulSet's --requirepass, at the
URL the Deployment gives the server (the rendered Secrets' values, only the hosts
changed to this machine's)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
import redis

from tests.deploy.chart import RELEASE, VALUE_SETS, Object, Rendered, container_environment, render, server_container
from tests.support.redis import running_redis
from tests.support.server import ROOT, running_server

PLAY_POD = f"{RELEASE}-ludotheque-test-play"


def play_pod(r: Rendered) -> Object:
    pod = r.one("Pod", PLAY_POD)
    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    assert pod["spec"]["restartPolicy"] == "Never"
    (container,) = pod["spec"]["containers"]
    found: Object = container
    return found


def redis_password(r: Rendered) -> str:
    """The password the rendered Redis is started with (from its container's env)."""
    (redis_container,) = r.one("StatefulSet")["spec"]["template"]["spec"]["containers"]
    command = redis_container["command"]
    assert command[command.index("--requirepass") + 1] == "$(REDIS_PASSWORD)"
    environment = container_environment(r, redis_container)
    assert environment["REDISCLI_AUTH"] == environment["REDIS_PASSWORD"], "the probe's redis-cli authenticates"
    password = environment["REDIS_PASSWORD"]
    assert len(password) >= 32 and password.isalnum()
    return password


def run_the_test_pod(r: Rendered, target: str, **overrides: str) -> subprocess.CompletedProcess[str]:
    container = play_pod(r)
    environment = container_environment(r, container)
    service = r.one("Service", f"{RELEASE}-ludotheque")
    grpc_port = next(p["port"] for p in service["spec"]["ports"] if p["name"] == "grpc")
    assert environment["LUDOTHEQUE_TARGET"] == f"{service['metadata']['name']}.games.svc:{grpc_port}"
    assert container["command"][:2] == ["python", "-c"]
    assert container["command"][2] == (ROOT / "deploy/helm/ludotheque/files/helm-test-play.py").read_text()
    environment |= {"LUDOTHEQUE_TARGET": target, **overrides}
    path = {"PATH": os.environ["PATH"], "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT / "clients/python/src"))}
    return subprocess.run(
        [sys.executable, *container["command"][1:]],
        env=environment | path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_helm_test_plays_a_move_through_the_service_on_the_password_protected_redis() -> None:
    r = render({})
    password = redis_password(r)
    server_environment = container_environment(r, server_container(r))
    store = server_environment["LUDOTHEQUE_STORE"]
    redis_host = f"{RELEASE}-ludotheque-redis:6379"
    assert store == f"redis://:{password}@{redis_host}/0", "the URL carries the rendered password"
    with running_redis(["--requirepass", password]) as store_redis:
        with pytest.raises(redis.AuthenticationError):  # no password, no games
            store_redis.command("PING")
        env = {
            "LUDOTHEQUE_STORE": store.replace(redis_host, f"127.0.0.1:{store_redis.port}"),
            "LUDOTHEQUE_ADMIN_TOKEN": server_environment["LUDOTHEQUE_ADMIN_TOKEN"],
        }
        with running_server(env=env) as server:
            played = run_the_test_pod(r, server.target)
            assert played.returncode == 0, played.stderr
            assert "a move played: version 1 -> " in played.stdout
            unknown = run_the_test_pod(r, server.target, LUDOTHEQUE_TEST_KIND="chess")
            assert unknown.returncode == 1 and "INVALID_ARGUMENT" in unknown.stderr, unknown.stderr
            log = server.log()
        assert password not in log, "the store's password is never logged"
        unreachable = run_the_test_pod(r, server.target)  # the server is gone: the test fails
        assert unreachable.returncode == 1 and "UNAVAILABLE" in unreachable.stderr, unreachable.stderr


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_every_release_has_its_helm_test_and_it_reaches_the_service(value_set: str) -> None:
    """Whatever the values, the test Pod's references resolve and it calls the Service."""
    r = render(VALUE_SETS[value_set])
    environment = container_environment(r, play_pod(r))
    service: Any = r.one("Service", f"{RELEASE}-ludotheque")
    assert environment["LUDOTHEQUE_TARGET"].startswith(f"{service['metadata']['name']}.")
    assert environment.get("LUDOTHEQUE_ADMIN_TOKEN") == container_environment(r, server_container(r)).get(
        "LUDOTHEQUE_ADMIN_TOKEN"
    ), "it acts as the admin the server knows"
