"""The tool allow/deny pattern lists become the client's tool policy (clients.tool_policy)."""

import clients.tool_policy
from django.db import migrations, models


def patterns_to_policy(apps, schema_editor):
    """Each client's allow/deny patterns, as the policy lines that decide the same."""
    client_model = apps.get_model("clients", "Client")
    for client in client_model.objects.exclude(tool_allow_patterns="", tool_deny_patterns=""):
        rules = clients.tool_policy.rules_from_patterns(
            client.tool_allow_patterns, client.tool_deny_patterns
        )
        client.tool_policy = rules or None
        client.save(update_fields=["tool_policy"])


class Migration(migrations.Migration):
    dependencies = [
        ("clients", "0005_mask_secrets"),
    ]

    operations = [
        migrations.AddField(
            model_name="client",
            name="tool_policy",
            field=models.TextField(
                blank=True,
                help_text="One rule per line: a tool name as clients see it or a shell-style pattern ('github__*' for a whole upstream), then allow, ask or deny, e.g. 'github__delete_* deny'. The first matching line decides; a client's lines come before the global ones; other tools are allowed. Denied tools are not listed; asked tools run only after the person at the client accepts. Leave empty to inherit.",
                null=True,
                validators=[clients.tool_policy.validate_tool_policy],
                verbose_name="tool policy",
            ),
        ),
        migrations.AddField(
            model_name="globalsettings",
            name="tool_policy",
            field=models.TextField(
                blank=True,
                help_text="One rule per line: a tool name as clients see it or a shell-style pattern ('github__*' for a whole upstream), then allow, ask or deny, e.g. 'github__delete_* deny'. The first matching line decides; a client's lines come before the global ones; other tools are allowed. Denied tools are not listed; asked tools run only after the person at the client accepts. Leave empty to inherit.",
                null=True,
                validators=[clients.tool_policy.validate_tool_policy],
                verbose_name="tool policy",
            ),
        ),
        migrations.RunPython(patterns_to_policy, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name="client",
            name="tool_allow_patterns",
        ),
        migrations.RemoveField(
            model_name="client",
            name="tool_deny_patterns",
        ),
    ]
