"""The Helm chart renders valid Kubernetes objects, that fit together, for every
supported configuration; `helm lint --strict` finds nothing."""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from typing import Any

import pytest
import yaml

from tests.deploy import kube
from tests.deploy.chart import (
    CHART,
    EXISTING_CONFIG_MAPS,
    EXISTING_SECRETS,
    RELEASE,
    VALUE_SETS,
    Object,
    Rendered,
    container_environment,
    lint,
    render,
    server_container,
    walk,
)
from tests.support.server import ROOT

NEWEST_KUBERNETES = "1.37"


def oldest_kubernetes() -> str:
    """The oldest version the chart claims to support (Chart.yaml's kubeVersion)."""
    constraint = yaml.safe_load((CHART / "Chart.yaml").read_text())["kubeVersion"]
    found = re.fullmatch(r">=\s*(\d+\.\d+)\.\d+(-0)?", constraint)
    assert found, f"kubeVersion {constraint!r}: expected '>=X.Y.Z-0'"
    return found.group(1)


@cache
def rendered(value_set: str) -> Rendered:
    return render(VALUE_SETS[value_set])


def test_the_chart_lints_clean() -> None:
    assert lint() == []


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_every_object_is_valid_for_the_oldest_and_newest_kubernetes(value_set: str) -> None:
    assert lint(VALUE_SETS[value_set]) == []
    objects = rendered(value_set).objects
    versions = (oldest_kubernetes(), NEWEST_KUBERNETES)
    assert [problem for o in objects for version in versions for problem in kube.problems(o, version)] == []
    names = [(o["kind"], o["metadata"]["name"]) for o in objects]
    assert len(names) == len(set(names)), "two objects of one kind share a name"
    for obj in objects:
        labels = obj["metadata"].get("labels", {})
        assert labels.get("app.kubernetes.io/instance") == RELEASE, f"{obj['kind']} lacks the release's labels"


def test_the_validation_refuses_what_the_api_server_would() -> None:
    r = rendered("monitoring-and-network-policy")
    monitor = copy.deepcopy(r.one("ServiceMonitor"))
    monitor["spec"]["endpoints"][0].update(interval="30 seconds", portName="http")
    found = kube.problems(monitor, NEWEST_KUBERNETES)
    assert any("interval" in p for p in found) and any("portName" in p for p in found)
    deployment = copy.deepcopy(r.one("Deployment"))
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"]["port"] = "grpc"
    deployment["spec"]["replica"] = 2
    found = kube.problems(deployment, oldest_kubernetes())
    assert any("readinessProbe.grpc.port" in p for p in found) and any("'replica'" in p for p in found)
    assert kube.problems({**deployment, "apiVersion": "apps/v1beta1"}, NEWEST_KUBERNETES)


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def selected_pods(r: Rendered, selector: dict[str, str]) -> list[Object]:
    return [t for t in r.pod_templates() if matches(selector, t["metadata"]["labels"])]


def port_names(pod: Object) -> dict[str, int]:
    return {p["name"]: p["containerPort"] for c in pod["spec"]["containers"] for p in c.get("ports", [])}


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_the_objects_refer_to_each_other_correctly(value_set: str) -> None:
    """What the schemas cannot see: selectors select, named ports exist, references resolve."""
    r = rendered(value_set)
    for workload in r.of_kind("Deployment") + r.of_kind("StatefulSet"):
        assert matches(workload["spec"]["selector"]["matchLabels"], workload["spec"]["template"]["metadata"]["labels"])
        pod = workload["spec"]["template"]["spec"]
        for volume in pod.get("volumes", []):
            if "configMap" in volume:
                name = volume["configMap"]["name"]
                assert r.named("ConfigMap", name) or name in EXISTING_CONFIG_MAPS, volume
            if "secret" in volume:
                name = volume["secret"]["secretName"]
                assert r.named("Secret", name) or name in EXISTING_SECRETS, volume
        account = pod.get("serviceAccountName")
        if account and account != "default":
            assert r.named("ServiceAccount", account), account
        for container in pod["containers"]:
            container_environment(r, container)  # every reference resolves
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                named = container.get(probe, {}).get("httpGet", container.get(probe, {}).get("tcpSocket", {}))
                if isinstance(named.get("port"), str):
                    assert named["port"] in port_names(workload["spec"]["template"]), (probe, named)
    for service in r.of_kind("Service"):
        pods = selected_pods(r, service["spec"]["selector"])
        assert len(pods) == 1, f"Service {service['metadata']['name']} selects {len(pods)} kinds of pods"
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in port_names(pods[0]), (service["metadata"]["name"], port)
    for statefulset in r.of_kind("StatefulSet"):
        governing = r.named("Service", statefulset["spec"]["serviceName"])
        assert governing is not None and governing["spec"].get("clusterIP") == "None"
    for budget in r.of_kind("PodDisruptionBudget"):  # the server's, the bundled Redis's
        (pods,) = [selected_pods(r, budget["spec"]["selector"]["matchLabels"])]
        assert len(pods) == 1 and pods[0] in r.pod_templates(), budget["metadata"]["name"]
    for autoscaler in r.of_kind("HorizontalPodAutoscaler"):
        target = autoscaler["spec"]["scaleTargetRef"]
        assert r.named(target["kind"], target["name"]), target
    for policy in r.of_kind("NetworkPolicy"):
        (pod,) = selected_pods(r, policy["spec"]["podSelector"]["matchLabels"])
        for rule in policy["spec"]["ingress"]:
            assert {p["port"] for p in rule["ports"]} <= set(port_names(pod))
    for ingress in r.of_kind("Ingress"):
        for backend in (n for n in walk(ingress) if isinstance(n, dict) and "service" in n):
            target = r.named("Service", backend["service"]["name"])
            assert target is not None
            assert backend["service"]["port"]["name"] in {p["name"] for p in target["spec"]["ports"]}
    for monitor in r.of_kind("ServiceMonitor"):
        selector = monitor["spec"]["selector"]["matchLabels"]
        (service,) = [s for s in r.of_kind("Service") if matches(selector, s["metadata"]["labels"])]
        assert service["metadata"]["name"] == r.one("Deployment")["metadata"]["name"], "not the main Service"
        for endpoint in monitor["spec"]["endpoints"]:
            assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_pods_run_unprivileged_on_a_read_only_root(value_set: str) -> None:
    r = rendered(value_set)
    for workload in r.of_kind("Deployment") + r.of_kind("StatefulSet"):
        pod = workload["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] > 0
        assert pod["automountServiceAccountToken"] is False
        for container in pod["containers"]:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True
            assert context["allowPrivilegeEscalation"] is False
            assert context["capabilities"]["drop"] == ["ALL"]
            assert "memory" in container["resources"]["limits"]
            assert {"cpu", "memory"} <= set(container["resources"]["requests"])


def test_the_default_install_is_two_spread_pods_on_a_bundled_durable_redis() -> None:
    r = rendered("default")
    deployment = r.one("Deployment")
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    anti = deployment["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"]
    term = anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert matches(term["labelSelector"]["matchLabels"], deployment["spec"]["template"]["metadata"]["labels"])
    assert r.one("PodDisruptionBudget", f"{RELEASE}-ludotheque")["spec"]["maxUnavailable"] == 1
    # The one Redis: a drain waits for the operator; no pod evicts it.
    assert r.one("PodDisruptionBudget", f"{RELEASE}-ludotheque-redis")["spec"]["maxUnavailable"] == 0
    pod = deployment["spec"]["template"]["spec"]
    spread = {c["topologyKey"]: c for c in pod["topologySpreadConstraints"]}
    assert list(spread) == ["topology.kubernetes.io/zone", "kubernetes.io/hostname"]
    for constraint in spread.values():
        assert constraint["maxSkew"] == 1 and constraint["whenUnsatisfiable"] == "ScheduleAnyway"
        assert matches(constraint["labelSelector"]["matchLabels"], deployment["spec"]["template"]["metadata"]["labels"])
    startup = server_container(r)["startupProbe"]
    assert startup["httpGet"] == {"path": "/healthz", "port": "http"}
    assert startup["periodSeconds"] * startup["failureThreshold"] == 60
    assert not r.of_kind("HorizontalPodAutoscaler") + r.of_kind("ServiceMonitor") + r.of_kind("NetworkPolicy")
    assert not r.of_kind("Ingress")
    redis = r.one("StatefulSet")
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    assert claim["spec"]["resources"]["requests"]["storage"] == "8Gi"
    assert "storageClassName" not in claim["spec"]  # the cluster's default
    mounts = {m["name"]: m["mountPath"] for m in redis["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]}
    assert mounts["data"] == "/data"
    environment = container_environment(r, server_container(r))
    redis_service = r.one("Service", f"{RELEASE}-ludotheque-redis")
    password = container_environment(r, redis["spec"]["template"]["spec"]["containers"][0])["REDIS_PASSWORD"]
    assert len(password) >= 32  # generated, in the Redis Secret: the server's URL carries it
    assert environment["LUDOTHEQUE_STORE"] == f"redis://:{password}@{redis_service['metadata']['name']}:6379/0"
    assert "LUDOTHEQUE_STORE" not in r.one("ConfigMap", f"{RELEASE}-ludotheque")["data"]
    assert len(environment["LUDOTHEQUE_SECRET"]) >= 32  # generated
    assert len(environment["LUDOTHEQUE_ADMIN_TOKEN"]) >= 32  # generated: every install has an admin
    assert environment["LUDOTHEQUE_ADMIN_TOKEN"] != environment["LUDOTHEQUE_SECRET"]
    assert f"{RELEASE}-ludotheque-headless" in r.notes and "port-forward" in r.notes
    for name in (f"{RELEASE}-ludotheque", f"{RELEASE}-ludotheque-headless"):
        ports = r.one("Service", name)["spec"]["ports"]
        assert {(p["name"], p["appProtocol"]) for p in ports} == {("grpc", "grpc"), ("http", "http")}
    assert r.one("Service", f"{RELEASE}-ludotheque-headless")["spec"]["clusterIP"] == "None"


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_the_notes_say_what_is_rendered(value_set: str) -> None:
    """NOTES.txt, what `helm install` prints, against the objects it rendered: where the
    admin token is, the Redis password, the helm test, the monitoring objects."""
    r = rendered(value_set)
    notes, container = r.notes, server_container(r)
    admin = next(v for v in container["env"] if v["name"] == "LUDOTHEQUE_ADMIN_TOKEN")["valueFrom"]["secretKeyRef"]
    if "LUDOTHEQUE_ADMIN_TOKEN" in container_environment(r, container):
        assert f"Secret {admin['name']}" in notes and f'"{admin["key"]}"' in notes
        if r.named("Secret", admin["name"]):
            assert "No admin token" not in notes and f"{{.data.{admin['key']}}}" in notes
    (redis,) = [c for w in r.of_kind("StatefulSet") for c in w["spec"]["template"]["spec"]["containers"]] or [None]
    protected = redis is not None and "--requirepass" in redis["command"]
    assert ("Redis asks for a password" in notes) == protected
    if protected:
        secret = next(v for v in redis["env"] if v["name"] == "REDIS_PASSWORD")["valueFrom"]["secretKeyRef"]["name"]
        assert f"Secret {secret}," in notes and r.named("Secret", secret)
    assert ("helm test" in notes) == bool(r.named("Pod", f"{RELEASE}-ludotheque-test-play"))
    for kind, said in (("ServiceMonitor", "ServiceMonitor: "), ("PrometheusRule", "(PrometheusRule): ")):
        assert f"{said}{'on' if r.of_kind(kind) else 'off'}" in notes
    assert ("-headless" in notes) == bool(r.named("Service", f"{RELEASE}-ludotheque-headless"))


def test_a_custom_spread_or_no_password_is_the_operators_choice() -> None:
    own = [{"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}}]
    r = render({"topologySpreadConstraints": own, "redis": {"auth": {"enabled": False}}})
    assert r.one("Deployment")["spec"]["template"]["spec"]["topologySpreadConstraints"] == own
    assert not [s for s in r.of_kind("Secret") if s["metadata"]["name"].endswith("-redis")]
    redis = r.one("StatefulSet")["spec"]["template"]["spec"]["containers"][0]
    assert "--requirepass" not in redis["command"] and "env" not in redis
    url = container_environment(r, server_container(r))["LUDOTHEQUE_STORE"]
    assert url == f"redis://{RELEASE}-ludotheque-redis:6379/0"
    assert "WARNING: the bundled Redis asks for no password" in r.notes
    given = render({"redis": {"auth": {"password": "a" * 24}}, "topologySpread": {"enabled": False}})
    assert "topologySpreadConstraints" not in given.one("Deployment")["spec"]["template"]["spec"]
    assert container_environment(given, server_container(given))["LUDOTHEQUE_STORE"].startswith(f"redis://:{'a' * 24}@")
    assert "generated" not in given.notes.split("Redis asks for a password")[1].split("\n")[0]


def directives(config: str) -> dict[str, str]:
    lines = (line.split(None, 1) for line in config.splitlines() if line.strip() and not line.startswith("#"))
    return {words[0]: words[1] if len(words) > 1 else "" for words in lines}


def test_the_bundled_redis_has_the_settings_of_deploy_redis_conf() -> None:
    r = rendered("bundled-redis")
    shipped = r.one("ConfigMap", f"{RELEASE}-ludotheque-redis")["data"]["redis.conf"]
    assert directives(shipped) == directives((ROOT / "deploy" / "redis.conf").read_text())
    assert directives(shipped)["appendfsync"] == "always"
    container = r.one("StatefulSet")["spec"]["template"]["spec"]["containers"][0]
    assert container["command"][:2] == ["redis-server", "/etc/redis/redis.conf"]
    assert container["command"][container["command"].index("--maxmemory") + 1] == "2gb"
    (claim,) = r.one("StatefulSet")["spec"]["volumeClaimTemplates"]
    assert claim["spec"]["storageClassName"] == "fast-ssd"
    assert claim["spec"]["resources"]["requests"]["storage"] == "20Gi"


@pytest.mark.parametrize(
    ("value_set", "url"),
    [
        ("external-redis", "redis://redis.data.svc:6379/0"),
        ("cluster-redis", "redis+cluster://redis-cluster.data.svc:6379"),
    ],
)
def test_an_external_redis_is_used_by_url_and_nothing_is_bundled(value_set: str, url: str) -> None:
    r = rendered(value_set)
    assert not r.of_kind("StatefulSet")
    assert all("redis" not in s["metadata"]["name"] for s in r.of_kind("Service"))
    environment = container_environment(r, server_container(r))
    assert environment["LUDOTHEQUE_STORE"] == url
    assert environment["LUDOTHEQUE_REDIS_WAIT_REPLICAS"] == str(VALUE_SETS[value_set]["store"].get("waitReplicas", 0))


def test_autoscaling_replaces_the_replica_count() -> None:
    r = rendered("autoscaling")
    assert "replicas" not in r.one("Deployment")["spec"]
    autoscaler = r.one("HorizontalPodAutoscaler")["spec"]
    assert (autoscaler["minReplicas"], autoscaler["maxReplicas"]) == (3, 12)
    assert {m["resource"]["name"] for m in autoscaler["metrics"]} == {"cpu", "memory"}
    anti = r.one("Deployment")["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"]
    assert "requiredDuringSchedulingIgnoredDuringExecution" in anti


def test_monitoring_scrapes_the_main_service_and_network_policies_guard_server_and_redis() -> None:
    r = rendered("monitoring-and-network-policy")
    monitor = r.one("ServiceMonitor")
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert monitor["spec"]["endpoints"] == [
        {"port": "http", "path": "/metrics", "interval": "30s", "scrapeTimeout": "10s"}
    ]
    server_policy = r.one("NetworkPolicy", f"{RELEASE}-ludotheque")
    allowed_in = VALUE_SETS["monitoring-and-network-policy"]["networkPolicy"]["ingressFrom"]
    assert server_policy["spec"]["ingress"][0]["from"] == allowed_in
    redis_policy = r.one("NetworkPolicy", f"{RELEASE}-ludotheque-redis")
    (allowed,) = redis_policy["spec"]["ingress"][0]["from"]
    assert selected_pods(r, allowed["podSelector"]["matchLabels"]) == [r.one("Deployment")["spec"]["template"]]


def test_an_existing_secret_is_used_and_none_is_created() -> None:
    r = rendered("existing-secret")
    assert not r.of_kind("Secret")
    environment = container_environment(r, server_container(r))
    credentials = EXISTING_SECRETS["ludotheque-credentials"]
    assert environment["LUDOTHEQUE_SECRET"] == credentials["token-secret"]
    assert environment["LUDOTHEQUE_ADMIN_TOKEN"] == credentials["admin"]
    assert environment["LUDOTHEQUE_STORE"] == EXISTING_SECRETS["ludotheque-redis"]["url"]
    assert "LUDOTHEQUE_STORE" not in r.one("ConfigMap")["data"]  # the URL may carry a password


def test_the_ingress_serves_the_api_but_not_the_metrics() -> None:
    r = rendered("ingress-and-overrides")
    ingress = r.one("Ingress")
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"][0]["secretName"] == "ludotheque-tls"
    paths = [p["path"] for rule in ingress["spec"]["rules"] for p in rule["http"]["paths"]]
    assert "/v1" in paths and "/ludotheque.v1.GameService" in paths
    assert not any(p in ("/", "/metrics") for p in paths)
    assert r.one("Service")["spec"]["type"] == "NodePort"
    assert r.one("Deployment")["spec"]["strategy"] == {"type": "Recreate"}  # the memory store: one pod
    environment = container_environment(r, server_container(r))
    assert environment["LUDOTHEQUE_ADMIN_TOKEN"] == "the-admin-token-0123456789-0123456789"
    assert environment["LUDOTHEQUE_CACHE_SIZE"] == "500"  # extraEnv wins over the ConfigMap
    assert "memory store forgets" in r.notes


def undocumented(values: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Keys on one side only, wherever the schema lists an object's properties."""
    if "properties" not in schema or not isinstance(values, dict):
        return []
    properties = schema["properties"]
    found = [f"{path}{key}: in values.yaml, not in the schema" for key in values if key not in properties]
    found += [f"{path}{key}: in the schema, not in values.yaml" for key in properties if key not in values]
    for key in properties.keys() & values.keys():
        found += undocumented(values[key], properties[key], f"{path}{key}.")
    return found


def test_values_yaml_and_its_schema_name_the_same_values() -> None:
    """Every value has a default in values.yaml (where it is documented) and a rule."""
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    schema = json.loads((CHART / "values.schema.json").read_text())
    del schema["properties"]["global"]  # Helm's own, for subcharts
    assert undocumented(values, schema) == []
