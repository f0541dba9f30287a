"""The one table at the HTTP edge: every exception the service raises has one status and one code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from domain.kernel import RuleViolation
from service.commands import exceptions as x
from service.edge.errors import ERRORS, rule_for
from service.cli.serve import ConfigError, check
from service.ops.settings import Settings


def test_the_error_table_lists_each_condition_with_its_status_and_stable_code():
    listed = {cls.__name__: (rule.status, rule.code) for cls, rule in ERRORS.items()}
    assert listed == {
        "InvalidRequest": (400, "invalid_request"), "BadLastEventId": (400, "bad_last_event_id"),
        "DataError": (400, "invalid_request"), "RecursionError": (400, "invalid_request"),
        "UnicodeDecodeError": (400, "invalid_request"),
        "Unauthorized": (401, "unauthorized"),
        "Forbidden": (403, "forbidden"), "NotSeated": (403, "not_seated"), "GameRunning": (403, "game_running"),
        "DealSealed": (403, "deal_sealed"),
        "NotFound": (404, "not_found"), "GameNotFound": (404, "game_not_found"),
        "PlayerNotFound": (404, "player_not_found"), "KindNotFound": (404, "unknown_kind"),
        "VersionNotFound": (404, "version_not_found"), "SeatNotFound": (404, "no_such_seat"),
        "NoPicture": (404, "no_picture"),
        "RuleViolation": (409, None), "ConcurrencyError": (409, "version_conflict"), "Conflict": (409, "conflict"),
        "TooMuchContention": (409, "too_much_contention"),
        "InvalidCommand": (422, "invalid_command"), "IdempotencyKeyReused": (422, "idempotency_key_reused"), "InvalidOptions": (422, None), "BadCursor": (422, "bad_cursor"),
        "Unavailable": (503, "unavailable"), "ReadModelsUnavailable": (503, "read_models_unavailable"),
        "StoreUnavailable": (503, "database_unavailable"), "StreamLocked": (503, "stream_locked"), "PostgresConnectionError": (503, "database_unavailable"),
        "InterfaceError": (503, "database_unavailable"), "CannotConnectNowError": (503, "database_unavailable"),
        "ConnectionError": (503, "database_unavailable"),
        "InsufficientResourcesError": (503, "database_unavailable"),
        "OperatorInterventionError": (503, "database_unavailable"),
        "InternalClientError": (503, "database_unavailable"), "TimeoutError": (503, "database_unavailable"),
        # the edge's middleware refusals and the framework's exceptions
        "UnsupportedMediaType": (415, "unsupported_media_type"), "HeadersTooLarge": (431, "headers_too_large"), "RateLimited": (429, "rate_limited"),
        "PreflightRefused": (400, "cors_preflight_refused"), "ShuttingDown": (503, "shutting_down"),
        "ClientDisconnected": (400, "client_disconnected"), "ValidationException": (400, "invalid_request"),
        "NotAuthorizedException": (401, "unauthorized"), "PermissionDeniedException": (403, "forbidden"),
        "NotFoundException": (404, "not_found"), "MethodNotAllowedException": (405, "method_not_allowed"),
        "RequestEntityTooLarge": (413, "payload_too_large"), "TooManyRequestsException": (429, "rate_limited"),
        "ClientException": (400, "invalid_request"), "HTTPException": (500, "http_error"),
        "Exception": (500, "internal_error"),
        # accounts, tokens and apps (docs/accounts.md)
        "InsufficientScope": (403, "insufficient_scope"), "SignInFailed": (401, "sign_in_failed"),
        "SignInThrottled": (429, "sign_in_throttled"), "LoginTaken": (409, "login_taken"),
        "ReauthenticationRequired": (403, "reauthentication_required"), "InvalidName": (422, "invalid_name"),
        "LoginRequired": (422, "login_required"),
        "WeakPassword": (400, "weak_password"), "UnknownScope": (400, "unknown_scope"),
        "TokenNotFound": (404, "token_not_found"), "OAuthRefused": (422, None),
        "BadRedirectUri": (422, "invalid_redirect_uri"), "AppNotFound": (404, "app_not_found"),
        "BadBot": (422, "invalid_bot"), "BadCosignature": (422, "invalid_cosignature"), "BotNotFound": (404, "bot_not_found"),
    }


def test_every_service_exception_class_is_in_the_table():
    classes = [getattr(x, name) for name in x.__all__]
    missing = [cls.__name__ for cls in classes if isinstance(cls, type) and cls not in ERRORS
               and cls is not x.ServiceError]
    assert missing == []


def test_rule_violations_keep_the_rules_own_code_and_unmapped_errors_find_their_base():
    assert rule_for(RuleViolation("tikal.no_path", "no path")).code is None
    assert rule_for(x.InvalidOptions(RuleViolation("table.bad_seat_count", "2-4"))).status == 422
    assert rule_for(KeyError("x")) is ERRORS[Exception]  # a 500 that leaks nothing


SERVICE = Path(__file__).parents[3] / "service"
TABLE = SERVICE / "edge" / "errors.py"
PROBLEM_MAKERS = {"send_problem", "problem", "problem_response", "Problem", "ProblemDetail", "Rule"}


def literal_codes(source: str) -> list[str]:
    """Problem codes written as string literals in calls that make a problem detail (or a table row);
    and any dict of literal status numbers to literal strings (a second table of codes)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in PROBLEM_MAKERS:
                arguments = [*node.args, *(k.value for k in node.keywords)]
                found += [f"{name}({a.value!r})" for a in arguments
                          if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        elif isinstance(node, ast.Dict) and node.keys and all(
                isinstance(k, ast.Constant) and isinstance(k.value, int) and 400 <= k.value < 600 for k in node.keys) \
                and all(isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value.islower()
                        for v in node.values):
            found.append("a table of statuses to codes")
    return found


def test_no_problem_code_is_written_outside_the_error_table():
    written = {str(path.relative_to(SERVICE)): codes for path in sorted(SERVICE.rglob("*.py")) if path != TABLE
               if (codes := literal_codes(path.read_text()))}
    assert written == {}


def test_the_check_finds_a_literal_code_and_a_second_table():
    assert literal_codes('send_problem(scope, send, 429, "rate_limited", "slow down")') == [
        "send_problem('rate_limited')", "send_problem('slow down')"]
    assert literal_codes('errors.ProblemDetail(type="t", code="x")') == [
        "ProblemDetail('t')", "ProblemDetail('x')"]
    assert literal_codes('_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}') == [
        "a table of statuses to codes"]
    assert literal_codes('send_problem(scope, send, RateLimited("slow down", 5, 10))') == []


def test_middleware_refusals_are_answered_from_the_table():
    from service.edge import errors

    for exc in (errors.RateLimited("slow", 5, 10), errors.UnsupportedMediaType("json"),
                errors.PreflightRefused("no"), errors.ShuttingDown("bye")):
        rule = rule_for(exc)
        status, body, headers = errors.problem(exc, "/v1/x")
        assert status == rule.status and f'"code":"{rule.code}"'.encode() in body
    assert errors.problem(errors.RateLimited("slow", 5, 10), "/")[2] == {"Retry-After": "5", "RateLimit-Limit": "10"}


async def test_a_leaderboard_of_an_unknown_kind_has_the_same_code_as_the_kind_itself(client):
    for path in ("/v1/kinds/chess", "/v1/leaderboards/chess"):
        resp = await client.get(path)
        assert resp.status_code == 404 and resp.json()["code"] == "unknown_kind", path


@pytest.mark.parametrize("env, refused", [
    ({"STELA_WORKERS": "2", "DATABASE_URL": "postgresql://db/stela"}, "REDIS_URL"),
    ({"STELA_WORKERS": "2", "REDIS_URL": "redis://r"}, "DATABASE_URL"),
    ({"STELA_WORKERS": "0"}, "at least 1"),
])
def test_several_workers_are_refused_without_the_shared_services_they_need(env, refused):
    with pytest.raises(ConfigError, match=refused):
        check(Settings.from_env(env))


def test_one_worker_or_several_with_redis_and_a_database_are_accepted():
    check(Settings.from_env({}))
    check(Settings.from_env({"STELA_WORKERS": "2", "REDIS_URL": "redis://r", "DATABASE_URL": "postgresql://db/s"}))


@pytest.mark.parametrize("name, field, default, least", [
    ("STELA_PG_APPEND_SLOTS", "pg_append_slots", 4, 1),  # fewer than one slot refused
    ("STELA_PG_LOCK_TIMEOUT_MS", "pg_lock_timeout_ms", 200, 0),  # 0: no limit; a negative one refused
    ("STELA_RATE_LIMIT_WINDOW_SECONDS", "rate_limit_window_seconds", 60, 1),  # a window of 0 s refused
])
def test_store_settings_are_read_from_the_environment_and_out_of_range_refused(name, field, default, least):
    assert getattr(Settings.from_env({}), field) == default
    assert getattr(Settings.from_env({name: "16"}), field) == 16
    check(Settings.from_env({name: str(least)}))
    with pytest.raises(ConfigError, match=name):
        check(Settings.from_env({name: str(least - 1)}))


def test_a_held_game_is_a_503_to_retry_in_a_second_not_a_database_outage():
    from service.edge import errors

    status, body, headers = errors.problem(x.StreamLocked("held"), "/v1/games/g/commands")
    assert status == 503 and b'"code":"stream_locked"' in body and headers == {"Retry-After": "1"}
