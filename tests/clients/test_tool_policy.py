"""The tool policy: rules per upstream and tool, first match deciding, client before global."""

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from clients.context_settings import CLIENT_THEN_GLOBAL, parse_setting, resolve_settings
from clients.tool_policy import Decision, ToolPolicy, parse_tool_policy, rules_from_patterns


class Overrides:
    def __init__(self, **values):
        self.__dict__.update(values)


@pytest.mark.parametrize(
    ("tool", "decision"),
    [
        ("github__delete_repo", Decision.DENY),  # the tool's own line comes first
        ("github__create_issue", Decision.ASK),  # the upstream's line
        ("files__read_file", Decision.ALLOW),  # no line: the built-in default
        ("GITHUB__create_issue", Decision.ALLOW),  # names are matched case-sensitively
    ],
)
def test_the_first_matching_line_decides(tool, decision):
    policy = ToolPolicy.from_text("github__delete_*  DENY\n# a comment\n\ngithub__* ask\n")
    assert policy.decision(tool) is decision
    assert policy.lists(tool) is (decision is not Decision.DENY)


def test_a_clients_lines_come_before_the_global_ones_and_unset_tools_inherit():
    team = Overrides(tool_policy="github__* deny\nfiles__write_* ask")
    client = Overrides(tool_policy="github__search_* allow")
    setting = resolve_settings(client, team)["tool_policy"]
    assert setting.source == CLIENT_THEN_GLOBAL
    policy = ToolPolicy.from_text(setting.value)
    assert policy.decision("github__search_code") is Decision.ALLOW  # the client's line
    assert policy.decision("github__push") is Decision.DENY  # inherited from the team
    assert policy.decision("files__write_file") is Decision.ASK
    assert str(setting) == (
        "github__search_* allow; github__* deny; files__write_* ask; other tools allow "
        f"({CLIENT_THEN_GLOBAL})"
    )


@pytest.mark.parametrize(
    "text",
    ["github__*", "github__* maybe", "github__* deny now", "deny"],
)
def test_a_bad_line_is_refused_with_its_number(text):
    with pytest.raises(ValidationError) as raised:
        parse_tool_policy("files__* allow\n" + text)
    assert raised.value.messages[0].startswith(f"line 2 ({text!r}): expected a tool name")


def test_the_command_line_takes_rules_separated_by_semicolons():
    value = parse_setting("tool_policy", "github__delete_* deny; github__* ask")
    assert value == "github__delete_* deny\ngithub__* ask"
    assert parse_setting("tool_policy", "inherit") is None
    with pytest.raises(ValidationError, match="tool_policy: line 1"):
        parse_setting("tool_policy", "github__* perhaps")


@pytest.mark.parametrize(
    ("allow", "deny", "hidden", "shown"),
    [
        ("", "echo__add*", ["echo__add", "echo__add_tool"], ["echo__echo"]),
        ("echo__*\nfiles__read_*", "echo__crash", ["echo__crash", "files__write"], ["echo__x"]),
        ("", "", [], ["anything__at_all"]),
    ],
)
def test_former_allow_and_deny_patterns_become_rules_that_decide_the_same(
    allow, deny, hidden, shown
):
    policy = ToolPolicy.from_text(rules_from_patterns(allow, deny))
    assert [tool for tool in hidden if policy.lists(tool)] == []
    assert all(policy.lists(tool) for tool in shown)


@pytest.mark.django_db(transaction=True)
def test_the_migration_turns_each_clients_patterns_into_its_policy():
    executor = MigrationExecutor(connection)
    before = [("clients", "0005_mask_secrets")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps.get_model("clients", "Client")
    old.objects.create(
        name="carol", token_hash="h1", tool_allow_patterns="", tool_deny_patterns="x__add*"
    )
    old.objects.create(name="dan", token_hash="h2", tool_allow_patterns="", tool_deny_patterns="")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    from clients.models import Client

    assert dict(Client.objects.values_list("name", "tool_policy")) == {
        "carol": "x__add* deny",
        "dan": None,
    }
