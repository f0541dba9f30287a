"""Deployment artefacts outside k8s/ (see test_kubernetes.py): Dockerfile, .dockerignore, docker-compose.yml
and deploy/nginx.conf, parsed offline (no Docker, no nginx) by the small parsers in tests/deploy/support.py;
and, across every shipped file, no admin secret.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from service.ops.settings import ENV_VARS
from tests.deploy.support import (
    APP_PORT, HARDENING_SETTINGS, HEARTBEAT_SECONDS, IMAGE_UID, METRICS_PORT, ROOT, SETTINGS, Directive,
    dockerignore_excludes, nginx_seconds, parse_dockerfile, parse_nginx, postgres_seconds, read_dockerignore,
    trusted_networks,
)


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
    assert app_vars <= SETTINGS, app_vars - SETTINGS
    assert not {"DATABASE_URL", "REDIS_URL", "STELA_ADMIN_TOKEN"} & set(env), "no credentials baked in"
    assert final_stage().last("EXPOSE").value.split() == [str(APP_PORT), str(METRICS_PORT)]
    assert "STELA_METRICS_PORT" not in env, "the image leaves it to the settings default"


def test_dockerignore_keeps_only_the_build_inputs():
    patterns = read_dockerignore((ROOT / ".dockerignore").read_text())
    sources = [i.value.split()[0] for stage in dockerfile()[1] for i in stage.all("COPY")
               if not i.value.startswith("--from")]
    assert sources, "the build stage copies sources from the context"
    for source in sources:
        assert not dockerignore_excludes(patterns, source.strip("./")), f"{source} is needed by COPY"
    assert not dockerignore_excludes(patterns, "service/ops/settings.py")
    for path in (".git/HEAD", ".venv/bin/python", "tests/deploy/test_manifests.py", "k8s/base/api.yaml",
                 "data/pg/PG_VERSION", "service/__pycache__/settings.cpython-311.pyc", "docker-compose.yml"):
        assert dockerignore_excludes(patterns, path), f"{path} should not be in the build context"



def test_image_carries_the_typescript_sdk_for_the_web_client():
    """The web client imports the SDK from /sdk/: the build copies clients/typescript/dist (its one copy) into
    the client's static files before installing them, and only dist/ of the SDK is in the build context."""
    build = dockerfile()[1][0]
    steps = [(i.keyword, i.value) for i in build.instructions]
    copy = ("COPY", "clients/typescript/dist ./service/web/static/sdk")
    assert copy in steps, "the build stage copies the SDK's dist/ into the web client's static files"
    install = next(n for n, (name, value) in enumerate(steps) if name == "RUN" and "pip install --no-deps ." in value)
    assert steps.index(copy) < install, "copied before the distribution (package data static/**) is built"
    patterns = read_dockerignore((ROOT / ".dockerignore").read_text())
    assert not dockerignore_excludes(patterns, "clients/typescript/dist/index.js")
    for path in ("clients/typescript/node_modules/x/index.js", "clients/typescript/src/client.ts", "clients/python/x.py"):
        assert dockerignore_excludes(patterns, path), f"{path} should not be in the build context"
    assert (ROOT / "clients/typescript/dist/index.js").is_file()


def test_image_carries_the_python_sdk_the_bots_speak_through():
    """`stela bot-worker` imports `stela_client`, which the distribution ships (pyproject.toml): the build
    copies its package, and nothing else of clients/python, before installing the distribution."""
    build = dockerfile()[1][0]
    steps = [(i.keyword, i.value) for i in build.instructions]
    copy = ("COPY", "clients/python/stela_client ./clients/python/stela_client")
    assert copy in steps
    install = next(n for n, (name, value) in enumerate(steps) if name == "RUN" and "pip install --no-deps ." in value)
    assert steps.index(copy) < install and "service.bots.runner" in steps[install][1]
    patterns = read_dockerignore((ROOT / ".dockerignore").read_text())
    assert not dockerignore_excludes(patterns, "clients/python/stela_client/client.py")
    for path in ("clients/python/tests/test_client.py", "clients/python/generate.py"):
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
    assert set(services()) == {"postgres", "redis", "api-1", "api-2", "proxy", "projector", "bots"}
    assert services()["postgres"]["image"].split(":")[1].startswith("15")
    assert services()["redis"]["image"].split(":")[1].startswith("7")
    assert set(stela_services()) == {"api-1", "api-2", "projector", "bots"}
    for name in ("api-1", "api-2"):
        assert services()[name]["command"] == ["serve"]
    assert services()["projector"]["command"] == ["projector"]


def test_compose_bot_worker_is_opt_in_and_talks_to_the_proxy():
    bots = services()["bots"]
    assert bots["profiles"] == ["bots"]  # it needs the admin token: never started by a plain `up`
    assert bots["command"][0] == "bot-worker"
    url = urlsplit(bots["command"][bots["command"].index("--url") + 1])
    listen = nginx().child("http").child("server").child("listen").args[0]
    assert (url.hostname, url.port) == ("proxy", int(listen))
    assert environment(bots)["STELA_ADMIN_TOKEN"] == "${STELA_ADMIN_TOKEN:-}"
    assert bots["healthcheck"] == {"disable": True}


def test_compose_only_the_proxy_is_published():
    published = {name for name, svc in services().items() if svc.get("ports")}
    assert published == {"proxy"}
    (mapping,) = services()["proxy"]["ports"]
    container_port = int(str(mapping).rsplit(":", 1)[1])
    listen = nginx().child("http").child("server").child("listen").args[0]
    assert container_port == int(listen)
    for name in ("api-1", "api-2"):
        assert [int(p) for p in services()[name]["expose"]] == [APP_PORT, METRICS_PORT]


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
        assert set(env) <= SETTINGS, (name, set(env) - SETTINGS)
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


def test_compose_api_replicas_believe_only_the_proxys_forwarded_for():
    (network,) = services()["proxy"]["networks"]
    proxy = ipaddress.ip_address(services()["proxy"]["networks"][network]["ipv4_address"])
    (pool,) = compose()["networks"][network]["ipam"]["config"]
    assert proxy in ipaddress.ip_network(pool["subnet"])
    assert proxy not in ipaddress.ip_network(pool["ip_range"]), "no other container can be given its address"
    for name, svc in services().items():
        attached = svc["networks"]
        assert list(attached) == [network], f"{name} talks to the others over the one network"
        if name != "proxy":
            assert not (isinstance(attached, dict) and (attached[network] or {}).get("ipv4_address")), name
    for name in ("api-1", "api-2"):
        trusted = trusted_networks(environment(services()[name])["STELA_TRUSTED_PROXIES"])
        assert trusted == [ipaddress.ip_network(f"{proxy}/32")], name
    assert "STELA_TRUSTED_PROXIES" not in environment(services()["projector"]), "the projector serves no HTTP"


def test_compose_serves_metrics_only_on_the_internal_metrics_port():
    for name in ("api-1", "api-2"):
        env = environment(services()[name])
        assert int(env["STELA_METRICS_PORT"]) == METRICS_PORT != APP_PORT
        assert METRICS_PORT in [int(p) for p in services()[name]["expose"]]
        assert not services()[name].get("ports"), "reachable inside the compose network only"
    upstream = nginx().child("http").child("upstream")
    assert all(not d.args[0].endswith(f":{METRICS_PORT}") for d in upstream.children("server"))


def test_compose_postgres_ends_idle_transactions():
    command = services()["postgres"]["command"]
    assert command[0] == "postgres", "the image's entrypoint runs the server with these flags"
    flags, values = command[1::2], command[2::2]
    assert len(flags) == len(values) and set(flags) == {"-c"}
    parameters = dict(value.split("=", 1) for value in values)
    assert 0 < postgres_seconds(parameters["idle_in_transaction_session_timeout"]) <= 300


def test_compose_admin_token_is_passed_through_only_when_set():
    for name in ("api-1", "api-2"):
        value = environment(services()[name])["STELA_ADMIN_TOKEN"]
        assert re.fullmatch(r"\$\{STELA_ADMIN_TOKEN(:-)?\}", value), value
        assert compose_default(value) == "", "empty: settings.py reads it as unset, so no admin"
    assert "STELA_ADMIN_TOKEN" not in environment(services()["projector"])


def test_compose_cors_origins_default_to_any():
    for name in ("api-1", "api-2"):
        value = environment(services()[name]).get("STELA_CORS_ORIGINS")
        assert value is None or compose_default(value) == "*"


def test_compose_proxy_mounts_the_nginx_config():
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in services()["proxy"]["volumes"]
    assert services()["proxy"]["image"].startswith("nginx")


# =========================================================================== deploy/nginx.conf

@functools.cache
def nginx():
    return parse_nginx((ROOT / "deploy" / "nginx.conf").read_text())


STREAMS = ["/v1/games/0f9c2a/stream", "/v1/players/me/stream"]
NOT_STREAMS = ["/v1/games/0f9c2a/events", "/v1/games/0f9c2a/stream-tickets", "/v1/players/me",
               "/v1/games/0f9c2a/stream/x", "/v1/kinds"]


def location_for(path: str) -> Directive:
    """The location nginx picks for `path`: exact, then the longest prefix if `^~`, then the first regex
    in file order, then the longest prefix."""
    locations = nginx().child("http").child("server").children("location")
    for loc in locations:
        if loc.args[0] == "=" and loc.args[1] == path:
            return loc
    prefixes = [loc for loc in locations if len(loc.args) == 1 or loc.args[0] == "^~"]
    prefixes = sorted((loc for loc in prefixes if path.startswith(loc.args[-1])), key=lambda loc: -len(loc.args[-1]))
    if prefixes and prefixes[0].args[0] == "^~":
        return prefixes[0]
    for loc in locations:
        if loc.args[0] in ("~", "~*") and re.search(loc.args[1], path, re.I if loc.args[0] == "~*" else 0):
            return loc
    assert prefixes, f"no location for {path}"
    return prefixes[0]


def proxy_headers(location: Directive) -> dict[str, str]:
    """The headers sent upstream from `location`: proxy_set_header is inherited only by a block
    that sets none of its own."""
    node = location
    while node is not None and not node.children("proxy_set_header"):
        node = node.parent
    assert node is not None
    return {d.args[0].lower(): d.args[1] if len(d.args) > 1 else "" for d in node.children("proxy_set_header")}


def all_directives(node: Directive):
    for child in node.block or []:
        yield child
        yield from all_directives(child)


def test_nginx_balances_both_api_replicas():
    (upstream,) = nginx().child("http").children("upstream")
    servers = {d.args[0] for d in upstream.children("server")}
    assert servers == {f"api-1:{APP_PORT}", f"api-2:{APP_PORT}"}
    assert upstream.children("keepalive"), "keep-alive connections to the upstreams"
    for location in nginx().child("http").child("server").children("location"):
        if location.children("proxy_pass"):
            assert location.child("proxy_pass").args == [f"http://{upstream.args[0]}"]


@pytest.mark.parametrize("path", STREAMS)
def test_nginx_passes_both_event_streams_unbuffered(path):
    location = location_for(path)
    assert location.children("proxy_pass")
    assert location.effective("proxy_buffering") == ["off"]
    assert location.effective("proxy_cache") == ["off"]
    assert location.effective("proxy_http_version") == ["1.1"]
    assert proxy_headers(location)["connection"] == "", "keep-alive to the upstream needs Connection cleared"
    for name in ("proxy_read_timeout", "proxy_send_timeout"):
        assert nginx_seconds(location.effective(name)[0]) >= 20 * HEARTBEAT_SECONDS, name


@pytest.mark.parametrize("path", NOT_STREAMS)
def test_nginx_buffers_everything_else_with_short_timeouts(path):
    location = location_for(path)
    assert location.effective("proxy_buffering") != ["off"]
    assert nginx_seconds(location.effective("proxy_read_timeout")[0]) <= 120


def test_nginx_appends_the_client_address_to_x_forwarded_for_everywhere():
    for location in nginx().child("http").child("server").children("location"):
        if location.children("proxy_pass"):
            headers = proxy_headers(location)
            assert headers["x-forwarded-for"] == "$proxy_add_x_forwarded_for", location.args
            assert headers["host"] == "$host", location.args


def test_nginx_leaves_cors_and_preflights_to_the_api():
    directives = list(all_directives(nginx()))
    assert not [d for d in directives if d.name == "add_header" and d.args[0].lower().startswith("access-control-")]
    assert not [d for d in directives if d.name in ("if", "limit_except")], "OPTIONS is proxied like any method"
    for location in nginx().child("http").child("server").children("location"):
        if location.args != ["=", "/proxy-healthz"]:
            assert location.children("proxy_pass") and not location.children("return"), location.args


def test_nginx_logs_leave_out_stream_tickets():
    for stream in STREAMS:   # error lines quote the request line, query string included
        assert location_for(stream).effective("error_log")[1] in ("crit", "alert", "emerg")
    http = nginx().child("http")
    formats = {d.args[0]: " ".join(d.args[1:]) for d in http.children("log_format")}
    logs = [d for d in all_directives(nginx()) if d.name == "access_log" and d.args != ["off"]]
    assert logs
    for log in logs:
        assert len(log.args) >= 2, "the default `combined` format logs $request, query string included"
        fmt = formats[log.args[1]]
        assert not re.search(r"\$(request|request_uri|args|query_string|is_args|arg_\w+)\b", fmt), fmt


def test_location_matching_is_not_vacuous():
    assert location_for("/proxy-healthz").args == ["=", "/proxy-healthz"]
    assert location_for("/v1/kinds").args == ["/"]
    assert location_for(STREAMS[0]).args[0] == "~"


def test_nginx_has_its_own_health_endpoint():
    server = nginx().child("http").child("server")
    (health,) = [loc for loc in server.children("location") if loc.args == ["=", "/proxy-healthz"]]
    assert health.child("return").args[0] == "200"
    assert "/proxy-healthz" in " ".join(services()["proxy"]["healthcheck"]["test"])


# =========================================================================== shipped secrets, settings

def shipped_files() -> list[Path]:
    """Every file a deployment takes configuration from: compose (and its .env), the image, k8s/."""
    files = [ROOT / "docker-compose.yml", ROOT / "Dockerfile", *sorted((ROOT / "deploy").rglob("*")),
             *sorted((ROOT / "k8s").rglob("*"))]
    files += [path for path in (ROOT / ".env", ROOT / "compose.override.yml", ROOT / "docker-compose.override.yml")
              if path.exists()]
    return [path for path in files if path.is_file()]


def admin_token_settings(text: str) -> list[str]:
    """Lines (comments aside) that give STELA_ADMIN_TOKEN something other than the caller's own value."""
    passed_through = re.compile(r"STELA_ADMIN_TOKEN: \$\{STELA_ADMIN_TOKEN(:-)?\}")
    lines = [line.split(" #", 1)[0].strip() for line in text.splitlines() if not line.lstrip().startswith("#")]
    return [line for line in lines if "STELA_ADMIN_TOKEN" in line and not passed_through.fullmatch(line)]


def admin_token_values(node) -> list[str]:
    """Values given to STELA_ADMIN_TOKEN anywhere in a parsed YAML document (mapping key, env entry,
    `NAME=value` literal as in secretGenerator or compose's list form)."""
    if isinstance(node, dict):
        found = [str(v) for k, v in node.items() if k == "STELA_ADMIN_TOKEN"]
        if node.get("name") == "STELA_ADMIN_TOKEN":
            found += [str(node.get("value", "")), str(node.get("valueFrom", ""))]
        return found + [v for child in node.values() for v in admin_token_values(child)]
    if isinstance(node, list):
        return [v for child in node for v in admin_token_values(child)]
    if isinstance(node, str) and node.startswith("STELA_ADMIN_TOKEN="):
        return [node.partition("=")[2]]
    return []


def test_no_shipped_file_carries_an_admin_token():
    files = shipped_files()
    assert ROOT / "k8s" / "base" / "secret.yaml" in files
    for path in files:
        text = path.read_text()
        assert not admin_token_settings(text), (path, admin_token_settings(text))
        if path.suffix in (".yml", ".yaml"):
            for document in yaml.safe_load_all(text):
                assert all(compose_default(v) == "" for v in admin_token_values(document)), path


def test_the_admin_token_checks_catch_the_old_defaults():
    old_compose = "x-stela-env: &stela-env\n  STELA_ADMIN_TOKEN: ${STELA_ADMIN_TOKEN:-dev-admin-token-change-me}\n"
    old_secret = "stringData:\n  REDIS_URL: redis://stela-redis:6379/0\n  STELA_ADMIN_TOKEN: change-me\n"
    generator = "secretGenerator:\n  - name: stela-admin\n    literals: [STELA_ADMIN_TOKEN=0123456789abcdef]\n"
    env = "env:\n  - name: STELA_ADMIN_TOKEN\n    value: a-fixed-token\n"
    for text in (old_compose, old_secret, generator):
        assert admin_token_settings(text)
    for text in (old_compose, old_secret, generator, env):
        assert [v for v in admin_token_values(yaml.safe_load(text)) if compose_default(v)]
    assert not admin_token_settings("#   --from-literal=STELA_ADMIN_TOKEN=\"$(openssl rand -hex 32)\"\n")


def test_the_settings_read_every_variable_the_configurations_set():
    assert HARDENING_SETTINGS <= set(ENV_VARS)
