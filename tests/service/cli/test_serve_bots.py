"""`stela serve`'s own bot worker (service.cli.serve, service.bots.embedded): on unless STELA_BOTS=off or
`--no-bots`, with an admin token nobody has to handle (the configured one, else one made for the run),
named stably so a restart resumes its bots, and reaching the process at its own bound address."""

from __future__ import annotations

import os
import pickle
import types

import msgspec
import pytest

from service.cli.main import parser
from service.cli.serve import ConfigError, bots_admin_token, check, embedded_bots, own_url
from service.ops.settings import Settings

EXTERNAL = Settings(database_url="postgresql://db/stela")


def test_bots_run_in_process_unless_turned_off():
    assert Settings.from_env({}).bots == "embedded"
    assert Settings.from_env({"STELA_BOTS": "off"}).bots == "off"
    assert parser().parse_args(["serve", "--no-bots"]).no_bots
    assert not parser().parse_args(["serve"]).no_bots
    assert embedded_bots(msgspec.structs.replace(EXTERNAL, bots="off", admin_token="t" * 32), 8000) is None
    with pytest.raises(ConfigError, match="STELA_BOTS"):
        check(msgspec.structs.replace(EXTERNAL, bots="sometimes"))


def test_without_an_admin_token_serve_makes_one_for_its_own_bots(monkeypatch):
    monkeypatch.delenv("STELA_ADMIN_TOKEN", raising=False)
    made = bots_admin_token(EXTERNAL)
    assert made.admin_token and len(made.admin_token) >= 32
    assert os.environ["STELA_ADMIN_TOKEN"] == made.admin_token  # the worker processes' settings read it
    assert bots_admin_token(EXTERNAL).admin_token != made.admin_token  # one per run, kept nowhere
    check(made)


def test_a_configured_token_is_kept_and_no_token_is_made_without_embedded_bots(monkeypatch):
    monkeypatch.delenv("STELA_ADMIN_TOKEN", raising=False)
    configured = msgspec.structs.replace(EXTERNAL, admin_token="a" * 40)
    assert bots_admin_token(configured) is configured
    off = msgspec.structs.replace(EXTERNAL, bots="off")
    assert bots_admin_token(off).admin_token is None and "STELA_ADMIN_TOKEN" not in os.environ


def test_the_embedded_worker_has_a_stable_name_and_travels_to_a_worker_process():
    settings = msgspec.structs.replace(EXTERNAL, admin_token="a" * 40)
    one, again = embedded_bots(settings, 8000), embedded_bots(settings, 8000)
    assert one is not None and again is not None and one.name == again.name  # a restart resumes its bots
    assert embedded_bots(settings, 8000, 1).name != embedded_bots(settings, 8000, 2).name
    assert pickle.loads(pickle.dumps(one)).admin_token == settings.admin_token  # STELA_WORKERS > 1 spawns


@pytest.mark.parametrize("bound, url", [(("0.0.0.0", 8123), "http://127.0.0.1:8123"),
                                        (("127.0.0.1", 8000), "http://127.0.0.1:8000"),
                                        (("::", 8001, 0, 0), "http://[::1]:8001")])
def test_the_worker_reaches_its_own_process_at_the_bound_address(bound, url):
    socket = types.SimpleNamespace(getsockname=lambda: bound)
    server = types.SimpleNamespace(servers=[types.SimpleNamespace(sockets=[socket])])
    assert own_url(server) == url
