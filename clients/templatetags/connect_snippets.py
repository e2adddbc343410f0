"""Absolute paths for the Connect panel's stdio snippets: they must work pasted anywhere."""

import json
import shlex
import sys

from django import template
from django.conf import settings

register = template.Library()
TOKEN_HOLE = "<your token>"


def stdio_argv() -> list[str]:
    """The interpreter running the gateway and this project's manage.py, both absolute."""
    return [sys.executable, str(settings.BASE_DIR / "manage.py"), "mcp_stdio"]


@register.simple_tag
def stdio_command_line(token: str | None = None) -> str:
    """`/…/python /…/manage.py mcp_stdio --token <your token>`, quoted for a shell."""
    return shlex.join(stdio_argv()) + f" --token {token or TOKEN_HOLE}"


@register.simple_tag
def stdio_mcp_servers_json(token: str | None = None) -> str:
    """The `mcpServers` entry Claude Desktop (which has no working-directory setting) needs."""
    python, *args = stdio_argv()
    entry = {"command": python, "args": args, "env": {"LOCALROUTER_TOKEN": token or TOKEN_HOLE}}
    return json.dumps({"mcpServers": {"localrouter": entry}}, indent=2)
