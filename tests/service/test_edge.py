"""Client addresses behind trusted proxies, and the admin token rule."""

from __future__ import annotations

import pytest

from service.edge import admin_token_problem, client_address, parse_networks

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
