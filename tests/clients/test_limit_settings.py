"""Limits are client settings: they inherit, 0 reads "unlimited", bad rules name their line."""

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from clients.context_settings import parse_setting, resolve_settings
from clients.limit_settings import ToolLimit, parse_tool_limits
from clients.models import Client, GlobalSettings
from tests.factories import ClientFactory, client_admin_form


def test_per_tool_rules_are_lines_of_a_pattern_and_its_limits():
    text = """
        # the search tools share one budget
        github__search_* calls_per_minute=10 concurrent_calls=2
        files__read_file bytes_per_day=1048576   # a comment after a rule
    """
    assert parse_tool_limits(text) == (
        ToolLimit("github__search_*", (("calls_per_minute", 10), ("concurrent_calls", 2))),
        ToolLimit("files__read_file", (("bytes_per_day", 1_048_576),)),
    )
    assert parse_tool_limits(text)[0].matches("github__search_code")
    assert not parse_tool_limits(text)[0].matches("github__get_issue")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a__b", "line 1 ('a__b'): no limit given"),
        ("a__b calls_per_hour=3", "line 1 ('a__b calls_per_hour=3'): 'calls_per_hour=3': expected"),
        ("a__b calls_per_minute=ten", "calls_per_minute: expected a whole number, got 'ten'"),
        ("a__b calls_per_minute=-1", "expected a whole number, got '-1'"),
        ("a__b concurrent_calls=10001", "concurrent_calls: must be between 0 (unlimited) and"),
        ("a__b calls_per_minute=1 calls_per_minute=2", "calls_per_minute is given twice"),
        ("calls_per_minute=1", "expected a tool name or pattern first"),
        ("\n\na__b calls_per_minute=1\na__b concurrent_calls=1", "line 4 ("),
    ],
)
def test_a_bad_rule_is_an_error_naming_its_line(text, message):
    with pytest.raises(ValidationError) as caught:
        parse_tool_limits(text)
    assert any(message in error for error in caught.value.messages), caught.value.messages


def test_every_bad_line_is_named_at_once():
    with pytest.raises(ValidationError) as caught:
        parse_tool_limits("a__b\nc__d concurrent_calls=1\ne__f x=1")
    assert [m.split(" ", 2)[:2] for m in caught.value.messages] == [["line", "1"], ["line", "3"]]


def test_limits_are_unlimited_by_default_and_read_so():
    effective = resolve_settings(None, None)
    assert (effective.calls_per_minute, effective.concurrent_calls, effective.bytes_per_day) == (
        0,
        0,
        0,
    )
    assert str(effective["calls_per_minute"]) == "unlimited (built-in default)"
    assert str(effective["tool_limits"]) == "none (built-in default)"


class Overrides:
    def __init__(self, **values):
        self.__dict__.update(values)


def test_an_empty_client_limit_inherits_the_global_one_and_zero_means_unlimited():
    team = Overrides(calls_per_minute=60, concurrent_calls=4)
    effective = resolve_settings(Overrides(calls_per_minute=None, concurrent_calls=0), team)
    assert str(effective["calls_per_minute"]) == "60 (global override)"
    assert str(effective["concurrent_calls"]) == "unlimited (client override)"


@pytest.mark.parametrize(
    ("field", "raw", "expected"),
    [
        ("calls_per_minute", "60", 60),
        ("concurrent_calls", "0", 0),
        ("bytes_per_day", "inherit", None),
        ("tool_limits", "a__b calls_per_minute=1; c__* concurrent_calls=2", None),
    ],
)
def test_limits_parse_from_the_command_line(field, raw, expected):
    value = parse_setting(field, raw)
    if field == "tool_limits":
        assert value == "a__b calls_per_minute=1\nc__* concurrent_calls=2"
    else:
        assert value == expected


@pytest.mark.parametrize(
    ("field", "raw", "message"),
    [
        ("calls_per_minute", "lots", "calls_per_minute: expected a whole number"),
        ("calls_per_minute", "100001", "must be between 0 (unlimited) and 100000"),
        ("tool_limits", "a__b; c__d x=1", "tool_limits: line 1 ('a__b'): no limit given"),
    ],
)
def test_bad_limits_on_the_command_line_are_clear_errors(field, raw, message):
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_setting(field, raw)


@pytest.mark.django_db
def test_create_client_sets_limits():
    out = StringIO()
    call_command(
        "create_client",
        "limited",
        "--set",
        "calls_per_minute=5",
        "--set",
        "tool_limits=echo__sleep concurrent_calls=1",
        stdout=out,
    )
    client = Client.objects.get(name="limited")
    assert client.calls_per_minute == 5
    assert client.tool_limits == "echo__sleep concurrent_calls=1"
    assert client.concurrent_calls is None and client.bytes_per_day is None
    with pytest.raises(CommandError, match="calls_per_minute: expected a whole number"):
        call_command("create_client", "other", "--set", "calls_per_minute=many", stdout=out)


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.mark.django_db
def test_a_bad_rule_in_the_admin_is_a_field_error_naming_its_line(staff):
    rules = "echo__sleep concurrent_calls=1\necho__* calls_per_minute=often"
    form = client_admin_form(name="alice", tool_limits=rules, calls_per_minute="-3")
    response = staff.post(reverse("admin:clients_client_add"), form)
    errors = response.context["adminform"].form.errors
    assert "line 2 ('echo__* calls_per_minute=often')" in errors["tool_limits"][0]
    assert "calls_per_minute" in errors
    assert not Client.objects.exists()


@pytest.mark.django_db
def test_the_client_page_shows_each_effective_limit_and_where_it_comes_from(staff):
    team = GlobalSettings.load()
    team.calls_per_minute = 120
    team.save()
    alice = ClientFactory(name="alice", concurrent_calls=2, bytes_per_day=0)
    page = staff.get(reverse("admin:clients_client_change", args=[alice.pk])).content.decode()
    assert "120 (global override)" in page
    assert "2 (client override)" in page
    assert "unlimited (client override)" in page
    assert "none (built-in default)" in page  # per-tool limits
    saved = staff.post(
        reverse("admin:clients_client_change", args=[alice.pk]),
        client_admin_form(name="alice", concurrent_calls="", tool_limits=""),
    )
    assert saved.status_code == 302
    alice.refresh_from_db()
    assert alice.concurrent_calls is None and alice.tool_limits is None  # empty: inherit
