"""Deployment artefacts: Dockerfile, .dockerignore, docker-compose.yml, deploy/nginx.conf and k8s/.

Offline and without Docker or kustomize: the Dockerfile and nginx config are parsed by small parsers in
tests/deploy/support.py, the kustomize overlays are built by tests/deploy/kustomize_lite.py, and every
built-in Kubernetes object is validated against the OpenAPI schemas shipped with kubernetes-validate.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from service.settings import ENV_VARS
from tests.deploy import kustomize_lite
from tests.deploy.support import (
    cpu, dockerignore_excludes, memory, nginx_seconds, parse_dockerfile, parse_nginx, read_dockerignore,
)

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
K8S_VERSION = "1.33.0"          # schemas shipped offline by kubernetes-validate
OVERLAYS = ["dev", "prod", "prod-managed"]
APP_PORT = 8000                 # settings.py default STELA_PORT
HEARTBEAT_SECONDS = 15          # settings.py default STELA_HEARTBEAT_SECONDS
IMAGE_UID = 10001
# custom resources kubernetes-validate has no schema for; checked by hand below
CUSTOM_KINDS = {("postgresql.cnpg.io/v1", "Cluster")}


# =========================================================================== Dockerfile

@functools.cache
def dockerfile():
    return parse_dockerfile((ROOT / "Dockerfile").read_text())


def final_stage():
    return dockerfile()[1][-1]


def test_dockerfile_is_multi_stage_on_python_311_slim():
    _, stages = dockerfile()
    assert len(stages) >= 2
    assert all(stage.name for stage in stages), "every stage is named (FROM ... AS name)"
    assert all(stage.base == "python:3.11-slim" for stage in stages)
    copies = [i.value for i in final_stage().all("COPY")]
    assert any(c.startswith(f"--from={stages[0].name} ") for c in copies), "runtime copies from the build stage"
    assert all("pip install" not in run.value for run in final_stage().all("RUN")), \
        "no dependency installation in the runtime stage"
    assert "/opt/venv/bin" in final_stage().env()["PATH"]


def test_dockerfile_runs_as_non_root_user():
    user = final_stage().last("USER")
    assert user is not None
    uid = user.value.split(":")[0]
    assert uid not in ("root", "0")
    assert uid == str(IMAGE_UID), "numeric uid, matching runAsUser in k8s/"


def test_dockerfile_healthcheck_uses_python_urllib_on_healthz():
    check = final_stage().last("HEALTHCHECK")
    assert check is not None
    command = check.exec_form()
    assert command and command[0] == "python" and command[1] == "-c"
    assert "urllib" in command[2] and "/healthz" in command[2]
    assert "curl" not in check.value and "wget" not in check.value
    assert re.search(r"--timeout=\d+s", check.value) and re.search(r"--interval=\d+s", check.value)


def test_dockerfile_entrypoint_and_default_command():
    assert final_stage().last("ENTRYPOINT").exec_form() == ["stela"]
    assert final_stage().last("CMD").exec_form() == ["serve"]


def test_dockerfile_environment_is_stela_settings_only():
    env = final_stage().env()
    assert env["STELA_HOST"] == "0.0.0.0"
    assert env["STELA_PORT"] == str(APP_PORT)
    app_vars = {name for name in env if name.startswith("STELA_") or name.endswith("_URL")}
    assert app_vars <= set(ENV_VARS), app_vars - set(ENV_VARS)
    assert not {"DATABASE_URL", "REDIS_URL", "STELA_ADMIN_TOKEN"} & set(env), "no credentials baked in"
    assert final_stage().last("EXPOSE").value == str(APP_PORT)


def test_dockerignore_keeps_only_the_build_inputs():
    patterns = read_dockerignore((ROOT / ".dockerignore").read_text())
    sources = [i.value.split()[0] for stage in dockerfile()[1] for i in stage.all("COPY")
               if not i.value.startswith("--from")]
    assert sources, "the build stage copies sources from the context"
    for source in sources:
        assert not dockerignore_excludes(patterns, source.strip("./")), f"{source} is needed by COPY"
    assert not dockerignore_excludes(patterns, "service/settings.py")
    for path in (".git/HEAD", ".venv/bin/python", "tests/deploy/test_manifests.py", "k8s/base/api.yaml",
                 "data/pg/PG_VERSION", "service/__pycache__/settings.cpython-311.pyc", "docker-compose.yml"):
        assert dockerignore_excludes(patterns, path), f"{path} should not be in the build context"


# =========================================================================== docker-compose.yml

@functools.cache
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def services() -> dict:
    return compose()["services"]


def environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return env


def compose_default(value: str) -> str:
    """The value docker compose uses when the ${VAR:-default} variables are unset."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", str(value))


def stela_services() -> dict[str, dict]:
    return {name: svc for name, svc in services().items() if "build" in svc or svc.get("image", "").startswith("stela")}


def test_compose_services():
    assert set(services()) == {"postgres", "redis", "api-1", "api-2", "proxy", "projector"}
    assert services()["postgres"]["image"].split(":")[1].startswith("15")
    assert services()["redis"]["image"].split(":")[1].startswith("7")
    assert set(stela_services()) == {"api-1", "api-2", "projector"}
    for name in ("api-1", "api-2"):
        assert services()[name]["command"] == ["serve"]
    assert services()["projector"]["command"] == ["projector"]


def test_compose_only_the_proxy_is_published():
    published = {name for name, svc in services().items() if svc.get("ports")}
    assert published == {"proxy"}
    (mapping,) = services()["proxy"]["ports"]
    container_port = int(str(mapping).rsplit(":", 1)[1])
    listen = nginx().child("http").child("server").child("listen").args[0]
    assert container_port == int(listen)
    for name in ("api-1", "api-2"):
        assert [int(p) for p in services()[name]["expose"]] == [APP_PORT]


def test_compose_health_checks():
    for name in ("postgres", "redis", "api-1", "api-2", "proxy"):
        check = services()[name].get("healthcheck")
        assert check and check.get("test") and not check.get("disable"), name
    assert "pg_isready" in " ".join(services()["postgres"]["healthcheck"]["test"])
    for name in ("api-1", "api-2"):
        test = " ".join(services()[name]["healthcheck"]["test"])
        assert "/healthz" in test and f":{APP_PORT}/" in test
    # `stela projector` serves no HTTP: the image's /healthz check must be switched off for it
    assert services()["projector"]["healthcheck"] == {"disable": True}


def test_compose_depends_on_healthy_services():
    def conditions(name):
        return {dep: spec["condition"] for dep, spec in services()[name]["depends_on"].items()}

    for name in ("api-1", "api-2"):
        assert conditions(name) == {"postgres": "service_healthy", "redis": "service_healthy"}
    assert conditions("projector")["postgres"] == "service_healthy"
    assert conditions("proxy") == {"api-1": "service_healthy", "api-2": "service_healthy"}


def test_compose_postgres_uses_a_named_volume():
    volumes = services()["postgres"]["volumes"]
    named = [v.split(":")[0] for v in volumes if v.endswith(":/var/lib/postgresql/data")]
    assert named and named[0] in (compose().get("volumes") or {})


def test_compose_stela_environment_is_read_by_settings():
    for name, svc in stela_services().items():
        env = environment(svc)
        assert set(env) <= set(ENV_VARS), (name, set(env) - set(ENV_VARS))
        assert {"DATABASE_URL", "REDIS_URL"} <= set(env), name


def test_compose_urls_point_at_compose_services():
    pg_env = environment(services()["postgres"])
    for name, svc in stela_services().items():
        env = {k: compose_default(v) for k, v in environment(svc).items()}
        db = urlsplit(env["DATABASE_URL"])
        assert db.scheme in ("postgresql", "postgres")
        assert (db.hostname, db.port or 5432) == ("postgres", 5432), name
        assert (db.username, db.password, db.path.lstrip("/")) == (
            pg_env["POSTGRES_USER"], pg_env["POSTGRES_PASSWORD"], pg_env["POSTGRES_DB"])
        redis = urlsplit(env["REDIS_URL"])
        assert redis.scheme == "redis" and (redis.hostname, redis.port or 6379) == ("redis", 6379), name


def test_compose_api_replicas_leave_projection_to_the_projector():
    for name in ("api-1", "api-2"):
        env = environment(services()[name])
        assert env["STELA_PROJECTOR"] == "off"   # a string: YAML's bare `off` would be a boolean
        assert env["STELA_HOST"] == "0.0.0.0"
        assert str(env.get("STELA_PORT", APP_PORT)) == str(APP_PORT)
    assert environment(services()["projector"]).get("STELA_PROJECTOR", "off") == "off"


def test_compose_proxy_mounts_the_nginx_config():
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in services()["proxy"]["volumes"]
    assert services()["proxy"]["image"].startswith("nginx")


# =========================================================================== deploy/nginx.conf

@functools.cache
def nginx():
    return parse_nginx((ROOT / "deploy" / "nginx.conf").read_text())


def sse_location():
    server = nginx().child("http").child("server")
    matching = [loc for loc in server.children("location")
                if loc.args[0] == "~" and re.fullmatch(loc.args[1], "/v1/games/0f9c2a/stream")]
    assert len(matching) == 1, "one regex location for /v1/games/{id}/stream"
    assert not re.fullmatch(matching[0].args[1], "/v1/games/0f9c2a/events")
    return matching[0]


def test_nginx_balances_both_api_replicas():
    (upstream,) = nginx().child("http").children("upstream")
    servers = {d.args[0] for d in upstream.children("server")}
    assert servers == {f"api-1:{APP_PORT}", f"api-2:{APP_PORT}"}
    assert upstream.children("keepalive"), "keep-alive connections to the upstreams"
    for location in nginx().child("http").child("server").children("location"):
        if location.children("proxy_pass"):
            assert location.child("proxy_pass").args == [f"http://{upstream.args[0]}"]


def test_nginx_passes_sse_unbuffered():
    location = sse_location()
    assert location.effective("proxy_buffering") == ["off"]
    assert location.effective("proxy_cache") == ["off"]
    assert location.effective("proxy_http_version") == ["1.1"]
    assert location.effective("proxy_set_header") is not None
    headers = {d.args[0].lower(): d.args[1] if len(d.args) > 1 else ""
               for d in nginx().child("http").child("server").children("proxy_set_header")}
    assert headers["connection"] == "", "keep-alive to the upstream needs Connection cleared"
    assert "x-forwarded-for" in headers
    for name in ("proxy_read_timeout", "proxy_send_timeout"):
        assert nginx_seconds(location.effective(name)[0]) >= 20 * HEARTBEAT_SECONDS, name


def test_nginx_has_its_own_health_endpoint():
    server = nginx().child("http").child("server")
    (health,) = [loc for loc in server.children("location") if loc.args == ["=", "/proxy-healthz"]]
    assert health.child("return").args[0] == "200"
    assert "/proxy-healthz" in " ".join(services()["proxy"]["healthcheck"]["test"])


# =========================================================================== Kubernetes (kustomize)

@functools.cache
def built(overlay: str) -> tuple[dict, ...]:
    return tuple(kustomize_lite.build(K8S / "overlays" / overlay if overlay != "base" else K8S / "base"))


def find(objects, kind: str, name: str | None = None) -> list[dict]:
    return [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]


def one(objects, kind: str, name: str) -> dict:
    (found,) = find(objects, kind, name)
    return found


def pod_spec(workload: dict) -> dict:
    return workload["spec"]["template"]["spec"]


def workloads(objects) -> list[dict]:
    return [o for o in objects if o["kind"] in ("Deployment", "StatefulSet", "DaemonSet")]


def selects(selector: dict, labels: dict) -> bool:
    assert set(selector) <= {"matchLabels"}, "only matchLabels selectors are used"
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def api(objects) -> dict:
    return one(objects, "Deployment", "stela-api")


def api_container(objects) -> dict:
    (container,) = pod_spec(api(objects))["containers"]
    return container


def config(objects) -> dict:
    return one(objects, "ConfigMap", "stela-config")["data"]


@pytest.mark.parametrize("overlay", ["base", *OVERLAYS])
def test_kustomization_builds(overlay):
    objects = built(overlay)
    assert find(objects, "Namespace", "stela")
    for obj in objects:
        if obj["kind"] != "Namespace":
            assert obj["metadata"].get("namespace") == "stela", obj["metadata"]["name"]


@pytest.mark.parametrize("overlay", ["base", *OVERLAYS])
def test_builtin_objects_match_the_kubernetes_schema(overlay):
    for obj in built(overlay):
        if (obj["apiVersion"], obj["kind"]) in CUSTOM_KINDS:
            continue
        try:
            kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{overlay}: {obj['kind']}/{obj['metadata']['name']}: {error.message} "
                        f"at {'/'.join(map(str, error.path))}")


def test_schema_validation_is_not_vacuous():
    deployment = dict(api(built("dev")))
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate({**deployment, "spec": {**deployment["spec"], "replica": 2}},
                                     K8S_VERSION, strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_cloudnativepg_cluster_by_hand(overlay):
    clusters = find(built(overlay), "Cluster")
    if overlay == "prod-managed":
        assert not clusters
        return
    (cluster,) = clusters
    assert cluster["apiVersion"] == "postgresql.cnpg.io/v1"
    spec = cluster["spec"]
    assert set(spec) <= {"instances", "imageName", "enableSuperuserAccess", "postgresql", "bootstrap", "storage",
                         "resources", "monitoring", "backup", "affinity", "primaryUpdateStrategy"}
    assert isinstance(spec["instances"], int) and spec["instances"] >= 1
    assert re.fullmatch(r"ghcr\.io/cloudnative-pg/postgresql:15(\.\d+)?", spec["imageName"])
    assert re.fullmatch(r"\d+(Mi|Gi|Ti)", spec["storage"]["size"])
    initdb = spec["bootstrap"]["initdb"]
    assert initdb["database"] == "stela" and initdb["owner"] == "stela"
    assert all(isinstance(v, str) for v in spec["postgresql"]["parameters"].values()), "parameters are strings"
    assert cpu(spec["resources"]["limits"]["cpu"]) >= cpu(spec["resources"]["requests"]["cpu"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_workloads_select_their_own_pods(overlay):
    for workload in workloads(built(overlay)):
        assert selects(workload["spec"]["selector"], workload["spec"]["template"]["metadata"]["labels"])
    for service in find(built(overlay), "Service"):
        pods = [w for w in workloads(built(overlay))
                if selects({"matchLabels": service["spec"]["selector"]}, w["spec"]["template"]["metadata"]["labels"])]
        assert len(pods) == 1, service["metadata"]["name"]
        ports = {p["name"] for c in pod_spec(pods[0])["containers"] for p in c.get("ports", [])}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ports


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_probes_point_at_healthz_and_readyz(overlay):
    container = api_container(built(overlay))
    (port,) = container["ports"]
    assert port["containerPort"] == APP_PORT
    assert int(config(built(overlay))["STELA_PORT"]) == port["containerPort"]

    def target(probe):
        get = container[probe]["httpGet"]
        assert get["port"] in (port["name"], port["containerPort"])
        return get["path"]

    assert target("readinessProbe") == "/readyz"
    assert target("livenessProbe") == "/healthz"
    assert target("startupProbe") == "/healthz"
    assert container["args"] == ["serve"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_drains_sse_on_shutdown(overlay):
    spec = pod_spec(api(built(overlay)))
    container = api_container(built(overlay))
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    grace = spec["terminationGracePeriodSeconds"]
    assert grace >= int(pre_stop[1]) + 2 * HEARTBEAT_SECONDS + 10
    strategy = api(built(overlay))["spec"]["strategy"]["rollingUpdate"]
    assert strategy["maxUnavailable"] == 0, "rolling updates never drop below the current capacity"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_container_has_requests_limits_and_runs_non_root(overlay):
    for workload in workloads(built(overlay)):
        spec = pod_spec(workload)
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert spec["securityContext"]["runAsUser"] != 0
        assert spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
        assert spec.get("automountServiceAccountToken") is False
        # service links would inject variables such as STELA_REDIS_PORT=tcp://..., and a Service named
        # `stela` would inject STELA_PORT=tcp://..., which settings.py would try to read as the port
        assert spec.get("enableServiceLinks") is False
        for container in spec["containers"]:
            name = f"{workload['metadata']['name']}/{container['name']}"
            resources = container["resources"]
            for kind in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(resources[kind]), name
            assert cpu(resources["limits"]["cpu"]) >= cpu(resources["requests"]["cpu"]), name
            assert memory(resources["limits"]["memory"]) >= memory(resources["requests"]["memory"]), name
            security = container["securityContext"]
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["capabilities"]["drop"] == ["ALL"], name
            assert security["readOnlyRootFilesystem"] is True, name
    for name in ("stela-api", "stela-projector"):
        assert pod_spec(one(built(overlay), "Deployment", name))["securityContext"]["runAsUser"] == IMAGE_UID


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_environment_keys_are_settings(overlay):
    objects = built(overlay)
    assert set(config(objects)) <= set(ENV_VARS), set(config(objects)) - set(ENV_VARS)
    assert config(objects)["STELA_PROJECTOR"] == "off"
    assert config(objects)["STELA_HOST"] == "0.0.0.0"
    for secret in find(objects, "Secret", "stela-secrets"):
        assert set(secret["stringData"]) == {"DATABASE_URL", "REDIS_URL", "STELA_ADMIN_TOKEN"}
    for name in ("stela-api", "stela-projector"):
        (container,) = pod_spec(one(objects, "Deployment", name))["containers"]
        assert {e["name"] for e in container.get("env", [])} <= set(ENV_VARS)
        refs = {(next(iter(ref)), next(iter(ref.values()))["name"]) for ref in container["envFrom"]}
        assert refs == {("configMapRef", "stela-config"), ("secretRef", "stela-secrets")}


@pytest.mark.parametrize("overlay", ["base", "dev"])
def test_placeholder_secret_urls_point_at_in_cluster_services(overlay):
    objects = built(overlay)
    urls = one(objects, "Secret", "stela-secrets")["stringData"]
    cluster = one(objects, "Cluster", "stela-postgres")
    owner = one(objects, "Secret", cluster["spec"]["bootstrap"]["initdb"]["secret"]["name"])["stringData"]
    db = urlsplit(urls["DATABASE_URL"])
    assert db.hostname == f"{cluster['metadata']['name']}-rw" and (db.port or 5432) == 5432
    assert (db.username, db.password) == (owner["username"], owner["password"])
    assert db.path.lstrip("/") == cluster["spec"]["bootstrap"]["initdb"]["database"]
    redis = urlsplit(urls["REDIS_URL"])
    service = one(objects, "Service", redis.hostname)
    assert (redis.port or 6379) in {p["port"] for p in service["spec"]["ports"]}


@pytest.mark.parametrize("overlay", ["prod", "prod-managed"])
def test_prod_builds_carry_no_credentials(overlay):
    assert not find(built(overlay), "Secret"), "prod Secrets are created out of band"


def test_prod_managed_drops_in_cluster_datastores():
    objects = built("prod-managed")
    assert not find(objects, "Cluster") and not find(objects, "StatefulSet")
    assert not [s for s in find(objects, "Service") if "redis" in s["metadata"]["name"]]
    for name in ("stela-api", "stela-projector"):
        ports = {p["port"] for rule in one(objects, "NetworkPolicy", name)["spec"]["egress"]
                 for p in rule.get("ports", [])}
        assert {53, 5432, 6379} <= ports


def test_images_are_set_per_overlay():
    def images(overlay):
        return {pod_spec(one(built(overlay), "Deployment", n))["containers"][0]["image"]
                for n in ("stela-api", "stela-projector")}

    assert images("dev") == {"stela:dev"}
    assert images("prod") == images("prod-managed") == {"registry.example.com/stela/stela:0.1.0"}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_hpa_targets_the_api_deployment(overlay):
    objects = built(overlay)
    (hpa,) = find(objects, "HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "stela-api"}
    assert 1 <= hpa["spec"]["minReplicas"] <= api(objects)["spec"]["replicas"] <= hpa["spec"]["maxReplicas"]
    container = api_container(objects)
    for metric in hpa["spec"]["metrics"]:
        assert metric["resource"]["name"] in container["resources"]["requests"], "utilisation needs requests"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pdb_selects_the_api_pods(overlay):
    objects = built(overlay)
    api_labels = api(objects)["spec"]["template"]["metadata"]["labels"]
    projector_labels = one(objects, "Deployment", "stela-projector")["spec"]["template"]["metadata"]["labels"]
    pdb = one(objects, "PodDisruptionBudget", "stela-api")
    assert pdb["apiVersion"] == "policy/v1"
    assert selects(pdb["spec"]["selector"], api_labels)
    assert not selects(pdb["spec"]["selector"], projector_labels)
    # a drain must be able to make progress even at the HPA minimum
    (hpa,) = find(objects, "HorizontalPodAutoscaler")
    if "minAvailable" in pdb["spec"]:
        assert pdb["spec"]["minAvailable"] < hpa["spec"]["minReplicas"]
    else:
        assert pdb["spec"]["maxUnavailable"] >= 1


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_projector_runs_leader_and_standby(overlay):
    projector = one(built(overlay), "Deployment", "stela-projector")
    assert projector["spec"]["replicas"] == (1 if overlay == "dev" else 2)
    (container,) = pod_spec(projector)["containers"]
    assert container["args"] == ["projector"]
    assert "ports" not in container and "livenessProbe" not in container, "the projector serves no HTTP"


def test_base_projector_has_two_replicas():
    assert one(built("base"), "Deployment", "stela-projector")["spec"]["replicas"] == 2


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_ingress_passes_sse(overlay):
    objects = built(overlay)
    (ingress,) = find(objects, "Ingress")
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    for name in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(annotations[f"nginx.ingress.kubernetes.io/{name}"]) >= 20 * HEARTBEAT_SECONDS
    assert ingress["spec"]["ingressClassName"] == "nginx"
    service = one(objects, "Service", "stela-api")
    paths = []
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            assert backend["name"] == "stela-api"
            assert backend["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}
            paths.append(path["path"])
    assert "/v1" in paths
    assert not any("/metrics".startswith(p.rstrip("/") + "/") or p in ("/", "/metrics") for p in paths), \
        "/metrics stays cluster-internal"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policies_select_existing_pods_and_admit_the_ingress(overlay):
    objects = built(overlay)
    pod_labels = [w["spec"]["template"]["metadata"]["labels"] for w in workloads(objects)]
    pod_labels += [{"cnpg.io/cluster": c["metadata"]["name"]} for c in find(objects, "Cluster")]
    for policy in find(objects, "NetworkPolicy"):
        assert any(selects(policy["spec"]["podSelector"], labels) for labels in pod_labels), \
            policy["metadata"]["name"]
    api_policy = one(objects, "NetworkPolicy", "stela-api")
    assert selects(api_policy["spec"]["podSelector"], api(objects)["spec"]["template"]["metadata"]["labels"])
    (rule,) = api_policy["spec"]["ingress"]
    assert {"kubernetes.io/metadata.name": "ingress-nginx"} in [
        peer.get("namespaceSelector", {}).get("matchLabels") for peer in rule["from"]]
    assert [p["port"] for p in rule["ports"]] == [APP_PORT]


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_postgres_connections_fit_the_pool_budget(overlay):
    objects = built(overlay)
    (hpa,) = find(objects, "HorizontalPodAutoscaler")
    pool = int(config(objects).get("STELA_DB_POOL_MAX", 20))
    processes = hpa["spec"]["maxReplicas"] + one(objects, "Deployment", "stela-projector")["spec"]["replicas"]
    max_connections = int(one(objects, "Cluster", "stela-postgres")["spec"]["postgresql"]["parameters"]
                          ["max_connections"])
    assert processes * pool <= max_connections - 20, "leave room for superuser, replication and tooling"


def test_redis_statefulset_has_its_governing_service():
    for overlay in ("dev", "prod"):
        objects = built(overlay)
        statefulset = one(objects, "StatefulSet", "stela-redis")
        governing = one(objects, "Service", statefulset["spec"]["serviceName"])
        assert governing["spec"]["clusterIP"] == "None"
        (container,) = pod_spec(statefulset)["containers"]
        assert container["image"].startswith("redis:7")


def test_prod_is_bigger_than_dev():
    dev, prod = built("dev"), built("prod")
    assert api(prod)["spec"]["replicas"] > api(dev)["spec"]["replicas"]
    (dev_hpa,), (prod_hpa,) = find(dev, "HorizontalPodAutoscaler"), find(prod, "HorizontalPodAutoscaler")
    assert prod_hpa["spec"]["minReplicas"] >= 2 and prod_hpa["spec"]["maxReplicas"] > dev_hpa["spec"]["maxReplicas"]
    dev_limits, prod_limits = api_container(dev)["resources"]["limits"], api_container(prod)["resources"]["limits"]
    assert cpu(prod_limits["cpu"]) > cpu(dev_limits["cpu"])
    assert memory(prod_limits["memory"]) > memory(dev_limits["memory"])
    assert one(prod, "Cluster", "stela-postgres")["spec"]["instances"] >= 3
