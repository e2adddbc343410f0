"""Read the MCP server config files that clients use (Claude, Cursor, VS Code).

Plain Python: parsing and validation only; the import command stores the result.
Supported shapes:
- {"mcpServers": {name: {...}}}  Claude Desktop, Claude Code, Cursor, Windsurf, ...
- {"servers": {name: {...}}}     VS Code (.vscode/mcp.json)
- {"mcp": {"servers": {...}}}    VS Code user settings.json
Each server has either command/args/env/cwd (stdio) or url/headers with an optional
type (http, streamable-http, streamableHttp, sse). `${VAR}` placeholders are kept as
written for the user to fill in.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from gateway.envelope import MAX_NESTING, nested_too_deep

TRANSPORT_BY_TYPE = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamablehttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}


class ConfigFileError(ValueError):
    """The file is not a usable MCP server config; the message names the place."""


@dataclass
class ServerEntry:
    """One upstream server as read from a config file."""

    name: str
    transport: str
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)


def upstream_name(key: str) -> str:
    """A config key made into an upstream name: lowercase, other characters as '-'."""
    name = re.sub(r"[^a-z0-9_-]+", "-", key.strip().lower()).strip("-_")
    name = re.sub(r"_{2,}", "_", name)
    return name[:48]


def parse_config(text: str, *, source: str = "config") -> list[ServerEntry]:
    """Parse a config file's text into server entries.

    Raises:
        ConfigFileError: malformed JSON or an unknown shape, naming the place.
    """
    if nested_too_deep(text.encode("utf-8", "surrogatepass")):
        raise ConfigFileError(f"{source}: nested deeper than {MAX_NESTING} levels")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigFileError(
            f"{source}:{error.lineno}:{error.colno}: not valid JSON ({error.msg})"
        ) from None
    servers, path = _servers_object(document, source)
    entries: list[ServerEntry] = []
    seen: dict[str, str] = {}
    for key, raw in servers.items():
        place = f"{path}.{key}"
        name = upstream_name(key)
        if not name:
            raise ConfigFileError(f"{place}: cannot make an upstream name from {key!r}")
        if name in seen:
            raise ConfigFileError(f"{place}: name {name!r} is also used by {seen[name]!r}")
        seen[name] = key
        entries.append(_entry(name, raw, place))
    return entries


def _servers_object(document: Any, source: str) -> tuple[dict[str, Any], str]:
    if not isinstance(document, dict):
        raise ConfigFileError(f"{source}: expected a JSON object at the top level")
    for path, value in (
        ("mcpServers", document.get("mcpServers")),
        ("servers", document.get("servers")),
        (
            "mcp.servers",
            (document.get("mcp") or {}).get("servers")
            if isinstance(document.get("mcp"), dict)
            else None,
        ),
    ):
        if value is None:
            continue
        if not isinstance(value, dict):
            raise ConfigFileError(f"{path}: expected an object mapping server names to settings")
        return value, path
    raise ConfigFileError(
        f"{source}: no 'mcpServers' (Claude, Cursor) or 'servers' (VS Code) object found"
    )


def _entry(name: str, raw: Any, place: str) -> ServerEntry:
    if not isinstance(raw, dict):
        raise ConfigFileError(f"{place}: expected an object")
    kind = raw.get("type", raw.get("transport"))
    if kind is not None and not isinstance(kind, str):
        raise ConfigFileError(f"{place}.type: expected a string")
    if kind is None:
        kind = "stdio" if "command" in raw else "http"
    transport = TRANSPORT_BY_TYPE.get(kind.lower())
    if transport is None:
        known = ", ".join(sorted(TRANSPORT_BY_TYPE))
        raise ConfigFileError(f"{place}.type: unknown transport {kind!r} (known: {known})")
    if transport == "stdio":
        return ServerEntry(
            name=name,
            transport=transport,
            command=_string(raw.get("command"), f"{place}.command", required=True),
            args=_strings(raw.get("args", []), f"{place}.args"),
            env=_string_map(raw.get("env", {}), f"{place}.env"),
            cwd=_string(raw.get("cwd", ""), f"{place}.cwd"),
        )
    return ServerEntry(
        name=name,
        transport=transport,
        url=_string(raw.get("url", raw.get("serverUrl")), f"{place}.url", required=True),
        headers=_string_map(raw.get("headers", {}), f"{place}.headers"),
    )


def _string(value: Any, place: str, *, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ConfigFileError(
            f"{place}: expected a non-empty string" if required else f"{place}: expected a string"
        )
    return value


def _strings(value: Any, place: str) -> list[str]:
    if not isinstance(value, list):
        raise ConfigFileError(f"{place}: expected a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigFileError(f"{place}[{index}]: expected a string")
    return list(value)


def _string_map(value: Any, place: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigFileError(f"{place}: expected an object of strings")
    result: dict[str, str] = {}
    for key, item in value.items():
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            raise ConfigFileError(f"{place}.{key}: expected a string")
        result[key] = str(item)
    return result
