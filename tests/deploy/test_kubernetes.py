"""The kustomize overlays in k8s/: built offline by tests/deploy/kustomize_lite.py, every built-in object
validated against the OpenAPI schemas shipped with kubernetes-validate, the rest checked by hand.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from tests.deploy import kustomize_lite
from tests.deploy.support import (
    APP_PORT, HEARTBEAT_SECONDS, IMAGE_UID, METRICS_PORT, ROOT, SETTINGS, cpu, memory, postgres_seconds,
    trusted_networks,
)

K8S = ROOT / "k8s"
K8S_VERSION = "1.33.0"          # schemas shipped offline by kubernetes-validate
OVERLAYS = ["dev", "prod", "prod-managed"]
# custom resources kubernetes-validate has no schema for; checked by hand below
CUSTOM_KINDS = {("postgresql.cnpg.io/v1", "Cluster")}


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
    ports = {p["name"]: p for p in container["ports"]}
    port = ports["http"]
    assert port["containerPort"] == APP_PORT
    assert int(config(built(overlay))["STELA_PORT"]) == port["containerPort"]

    def target(probe):
        get = container[probe]["httpGet"]
        assert get["port"] in (port["name"], port["containerPort"]), "probes stay on the API port"
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
    for name in ("stela-api", "stela-projector", "stela-bot-worker"):
        assert pod_spec(one(built(overlay), "Deployment", name))["securityContext"]["runAsUser"] == IMAGE_UID


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_environment_keys_are_settings(overlay):
    objects = built(overlay)
    assert set(config(objects)) <= SETTINGS, set(config(objects)) - SETTINGS
    assert config(objects)["STELA_PROJECTOR"] == "off"
    assert config(objects)["STELA_HOST"] == "0.0.0.0"
    for secret in find(objects, "Secret", "stela-secrets"):
        assert set(secret["stringData"]) == {"DATABASE_URL", "REDIS_URL"}
    for name in ("stela-api", "stela-projector"):
        (container,) = pod_spec(one(objects, "Deployment", name))["containers"]
        assert {e["name"] for e in container.get("env", [])} <= SETTINGS
        refs = {(next(iter(ref)), next(iter(ref.values()))["name"]) for ref in container["envFrom"]}
        admin = {("secretRef", "stela-admin")} if name == "stela-api" else set()
        assert refs == {("configMapRef", "stela-config"), ("secretRef", "stela-secrets")} | admin


@pytest.mark.parametrize("overlay", ["base", *OVERLAYS])
def test_no_build_ships_an_admin_token(overlay):
    objects = built(overlay)
    for obj in find(objects, "Secret") + find(objects, "ConfigMap"):
        assert "STELA_ADMIN_TOKEN" not in {**obj.get("data", {}), **obj.get("stringData", {})}, obj["metadata"]
    assert not find(objects, "Secret", "stela-admin"), "created by hand, never applied by kustomize"
    for workload in workloads(objects):
        for container in pod_spec(workload)["containers"]:
            assert "STELA_ADMIN_TOKEN" not in {e["name"] for e in container.get("env", [])}
    (admin,) = [ref["secretRef"] for ref in api_container(objects)["envFrom"]
                if ref.get("secretRef", {}).get("name") == "stela-admin"]
    assert admin["optional"] is True, "without the Secret the API starts, with no admin"


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


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_bots_are_played_by_a_worker_deployment_apart_from_the_api(overlay):
    """The API pods run no bot worker (`STELA_BOTS=off`); `stela bot-worker` does, through the API Service,
    with the admin token of the Secret made by hand (it waits for it) and no database credentials."""
    objects = built(overlay)
    assert config(objects)["STELA_BOTS"] == "off"
    (container,) = pod_spec(one(objects, "Deployment", "stela-bot-worker"))["containers"]
    assert container["args"][:3] == ["bot-worker", "--url", "http://stela-api"]
    assert [p["port"] for p in one(objects, "Service", "stela-api")["spec"]["ports"]] == [80]
    assert "ports" not in container and "livenessProbe" not in container, "the bot worker serves no HTTP"
    refs = [(next(iter(ref)), next(iter(ref.values()))) for ref in container["envFrom"]]
    assert ("secretRef", {"name": "stela-admin"}) in refs, "required: no optional flag"
    assert all(ref["name"] != "stela-secrets" for _, ref in refs)


def test_images_are_set_per_overlay():
    def images(overlay):
        return {pod_spec(one(built(overlay), "Deployment", n))["containers"][0]["image"]
                for n in ("stela-api", "stela-projector", "stela-bot-worker")}

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


def routed(ingress: dict, request_path: str) -> dict | None:
    """The backend of the longest Prefix path matching `request_path` element-wise, as an Ingress does."""
    matches = []
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            assert path["pathType"] == "Prefix", "only Prefix paths, so regex routing never applies"
            prefix = path["path"].rstrip("/").split("/")
            if request_path.split("/")[:len(prefix)] == prefix:
                matches.append((len(prefix), path["backend"]))
    return max(matches, key=lambda m: m[0])[1] if matches else None


@pytest.mark.parametrize("overlay", OVERLAYS)
@pytest.mark.parametrize("stream", ["/v1/games/0f9c2a/stream", "/v1/players/me/stream"])
def test_ingress_passes_both_event_streams(overlay, stream):
    (ingress,) = find(built(overlay), "Ingress")
    backend = routed(ingress, stream)
    assert backend == {"service": {"name": "stela-api", "port": {"name": "http"}}}
    # buffering and timeouts are per Ingress: every path routed by this one streams unbuffered
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 20 * HEARTBEAT_SECONDS
    assert routed(ingress, "/metrics") is None and routed(ingress, "/v1x") is None


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_ingress_leaves_cors_and_preflights_to_the_api(overlay):
    (ingress,) = find(built(overlay), "Ingress")
    annotations = ingress["metadata"]["annotations"]
    assert not [name for name in annotations if "cors" in name], "the controller would answer preflights itself"
    assert not [name for name in annotations if name.endswith("-snippet")], "no hand-written nginx"


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
    admitted: dict = {}
    for rule in api_policy["spec"]["ingress"]:
        for p in rule["ports"]:
            admitted.setdefault((p["port"], p["protocol"]), []).extend(
                peer.get("namespaceSelector", peer.get("podSelector", {})).get("matchLabels") for peer in rule["from"])
    # only the ingress controller, whose X-Forwarded-For the API believes, and the bot workers (API clients
    # sending none) reach the API port; only Prometheus reaches the metrics port
    bot_worker = one(objects, "Deployment", "stela-bot-worker")["spec"]["template"]["metadata"]["labels"]
    assert admitted == {(APP_PORT, "TCP"): [{"kubernetes.io/metadata.name": "ingress-nginx"},
                                            {"app.kubernetes.io/name": "stela", "app.kubernetes.io/component": "bot-worker"}],
                        (METRICS_PORT, "TCP"): [{"kubernetes.io/metadata.name": "monitoring"}]}
    assert selects({"matchLabels": admitted[(APP_PORT, "TCP")][1]}, bot_worker)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_metrics_are_scraped_on_their_own_port(overlay):
    objects = built(overlay)
    container = api_container(objects)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": APP_PORT, "metrics": METRICS_PORT}
    assert int(config(objects)["STELA_METRICS_PORT"]) == METRICS_PORT
    annotations = api(objects)["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == ports["metrics"]
    assert annotations["prometheus.io/path"] == "/metrics"
    service_ports = {p["targetPort"] for p in one(objects, "Service", "stela-api")["spec"]["ports"]}
    assert service_ports == {"http"}, "the Service (and so the Ingress) never reaches the metrics port"


@pytest.mark.parametrize("overlay", ["base", *OVERLAYS])
def test_api_trusts_forwarded_for_from_a_private_range_only(overlay):
    trusted = trusted_networks(config(built(overlay))["STELA_TRUSTED_PROXIES"])
    assert trusted
    for network in trusted:
        assert network.is_private and network.prefixlen >= 8, f"{network}: clients could pick their own bucket"


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_each_overlay_sets_its_own_trusted_proxies(overlay):
    directory = K8S / "overlays" / overlay
    kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text())
    patches = [doc for patch in kustomization["patches"] if "path" in patch
               for doc in kustomize_lite.load_documents(directory / patch["path"])]
    assert [doc for doc in patches if doc["kind"] == "ConfigMap" and "STELA_TRUSTED_PROXIES" in doc["data"]], \
        "the pod CIDR differs between clusters: each overlay states its own"


@pytest.mark.parametrize("overlay", ["base", *OVERLAYS])
def test_cors_origins_are_left_at_their_default(overlay):
    assert config(built(overlay)).get("STELA_CORS_ORIGINS", "*") == "*"


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_postgres_ends_idle_transactions(overlay):
    parameters = one(built(overlay), "Cluster", "stela-postgres")["spec"]["postgresql"]["parameters"]
    assert 0 < postgres_seconds(parameters["idle_in_transaction_session_timeout"]) <= 300


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
