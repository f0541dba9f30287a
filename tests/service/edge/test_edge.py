"""Client addresses behind trusted proxies, and the admin token rule."""

from __future__ import annotations

import logging

import pytest
import structlog
import structlog.testing

from service.edge.middleware import admin_token_problem, client_address, parse_networks

PROXY = parse_networks("172.30.80.10, 10.244.0.0/16")


def test_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy():
    assert client_address("127.0.0.1", "6.6.6.6", ()) == "127.0.0.1"
    assert client_address("198.51.100.4", "6.6.6.6", PROXY) == "198.51.100.4"


def test_behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client():
    assert client_address("172.30.80.10", "203.0.113.9", PROXY) == "203.0.113.9"
    # a client that sends its own header only adds hops on the left
    assert client_address("172.30.80.10", "6.6.6.6, 203.0.113.9", PROXY) == "203.0.113.9"
    assert client_address("10.244.3.4", "6.6.6.6, 203.0.113.9, 10.244.1.1", PROXY) == "203.0.113.9"
    assert client_address("172.30.80.10", "not-an-ip", PROXY) == "not-an-ip"
    assert client_address("172.30.80.10", None, PROXY) == "172.30.80.10"


def test_networks_parse_addresses_and_ranges_and_refuse_garbage():
    assert [str(n) for n in parse_networks("192.0.2.7,2001:db8::/32")] == ["192.0.2.7/32", "2001:db8::/32"]
    assert parse_networks("") == ()
    with pytest.raises(ValueError):
        parse_networks("10.0.0.0/33")


def test_placeholder_and_short_admin_tokens_are_refused_outside_development():
    assert admin_token_problem(None, development=False) is None
    assert "placeholder" in admin_token_problem("change-me", development=False)
    assert "32" in admin_token_problem("a" * 31, development=False)
    assert admin_token_problem("a" * 32, development=False) is None
    assert admin_token_problem("change-me", development=True) is None


def test_serve_refuses_a_placeholder_or_short_admin_token_outside_development():
    from service.cli.serve import ConfigError, check
    from service.ops.settings import Settings

    for token in ("dev-admin-token-change-me", "change-me", "short"):
        with pytest.raises(ConfigError, match="STELA_ADMIN_TOKEN"):
            check(Settings.from_env({"STELA_ADMIN_TOKEN": token}))
        check(Settings.from_env({"STELA_ADMIN_TOKEN": token, "STELA_ENV": "development"}))
    check(Settings.from_env({"STELA_ADMIN_TOKEN": "f" * 64}))
    with pytest.raises(ConfigError, match="STELA_TRUSTED_PROXIES"):
        check(Settings.from_env({"STELA_TRUSTED_PROXIES": "10.0.0.0/33"}))


def test_the_embedded_mode_makes_an_admin_token_once_and_says_where(tmp_path, monkeypatch, capsys):
    from service.cli.serve import check, embedded_admin_token
    from service.ops.settings import Settings

    monkeypatch.delenv("STELA_ADMIN_TOKEN", raising=False)
    level = structlog.get_config()["wrapper_class"]  # another test may have configured `warning`
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.INFO))
    try:
        with structlog.testing.capture_logs() as logs:
            first = embedded_admin_token(Settings(data_dir=str(tmp_path)))
    finally:
        structlog.configure(wrapper_class=level)
    again = embedded_admin_token(Settings(data_dir=str(tmp_path)))
    check(first)
    assert first.admin_token == again.admin_token and len(first.admin_token) >= 32
    assert (tmp_path / "admin-token").stat().st_mode & 0o077 == 0
    assert {"event": "admin_token", "path": str(tmp_path / "admin-token")}.items() <= logs[0].items()
    external = Settings(data_dir=str(tmp_path), database_url="postgresql://db/s")
    assert embedded_admin_token(external).admin_token is None


def test_every_log_line_is_json_tracebacks_included():
    import json
    import logging
    import sys

    from service.ops import logging as stela_logging

    stela_logging.configure("warning")  # as every app does
    handlers = logging.getLogger().handlers
    assert [type(h.formatter) for h in handlers] == [stela_logging.JsonFormatter]
    try:
        raise ConnectionResetError("pool connection lost")
    except ConnectionResetError:
        record = logging.getLogger("asyncpg.pool").makeRecord(
            "asyncpg.pool", logging.ERROR, __file__, 1, "connection %s dropped", ("7",), sys.exc_info())
    line = handlers[0].formatter.format(record)
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["event"] == "connection 7 dropped" and parsed["logger"] == "asyncpg.pool"
    assert "ConnectionResetError" in parsed["exception"]
