"""Read the MCP server config files that clients write (docs/importing.md lists them).

Plain Python: parsing and validation only; `gateway.services` stores the result.
Supported shapes (JSON or JSONC, i.e. with comments and trailing commas):
- {"mcpServers": {name: {...}}}  Claude Desktop, Claude Code, Cursor, Windsurf, Cline
- {"projects": {dir: {"mcpServers": {...}}}}  Claude Code's ~/.claude.json (with the above)
- {"servers": {name: {...}}}     VS Code (.vscode/mcp.json)
- {"mcp": {"servers": {...}}}    VS Code user settings.json
Each server has either command/args/env/envFile/cwd (stdio) or url/headers with an
optional type (http, streamable-http, streamableHttp, sse); `disabled` and `timeout`
(Cline) are kept. A remote server's OAuth client, where the format has one, is kept too:
`oauth` {clientId, clientSecret, scopes} (Claude Code, Gemini CLI) or `auth` {CLIENT_ID,
CLIENT_SECRET, scopes} (Cursor). Placeholders are rewritten in one syntax
(`gateway.upstream_config.env_placeholders`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from gateway.http.envelope import MAX_NESTING, nested_too_deep
from gateway.upstream_config import jsonc
from gateway.upstream_config.env_placeholders import convert

TRANSPORT_BY_TYPE = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamablehttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}
TYPE_KEYS = ("type", "transport", "transportType")
URL_KEYS = ("url", "serverUrl", "httpUrl")
MAX_TIMEOUT_SECONDS = 3600
APPROVAL_KEYS = ("autoApprove", "alwaysAllow")
OAUTH_KEYS = {
    "oauth": ("clientId", "clientSecret", "scopes"),  # Claude Code, Gemini CLI
    "auth": ("CLIENT_ID", "CLIENT_SECRET", "scopes"),  # Cursor
}
"""Where a format keeps a remote server's OAuth client: the object, and its id, secret and
scopes keys; other keys (endpoints, callback ports) are discovered or chosen by LocalRouter."""


class ConfigFileError(ValueError):
    """The file is not a usable MCP server config; the message names the place."""


@dataclass(frozen=True)
class OAuthClient:
    """The OAuth client a config file names for a remote server (registered by hand)."""

    client_id: str
    client_secret: str = ""
    scopes: str = ""
    """Space-separated."""


@dataclass
class ServerEntry:
    """One upstream server as read from a config file."""

    name: str
    transport: str
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    env_file: str = ""
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    enabled: bool = True
    timeout: float | None = None
    oauth: OAuthClient | None = None
    notes: list[str] = field(default_factory=list)


def upstream_name(key: str) -> str:
    """A config key made into an upstream name: lowercase, other characters as '-'."""
    name = re.sub(r"[^a-z0-9_-]+", "-", key.strip().lower()).strip("-_")
    name = re.sub(r"_{2,}", "_", name)
    return name[:48]


def parse_config(
    text: str, *, source: str = "config", workspace: str | None = None
) -> list[ServerEntry]:
    """Parse a config file's text into server entries.

    `workspace` is the folder `${workspaceFolder}` stands for, when known.

    Raises:
        ConfigFileError: malformed JSON or an unknown shape, naming the place.
    """
    too_deep = ConfigFileError(f"{source}: nested deeper than {MAX_NESTING} levels")
    # The standard library's parser (it names the line and column of a mistake) recurses
    # per level: a bounded parse goes first.
    if nested_too_deep(jsonc.strip_jsonc(text).encode("utf-8", "surrogatepass")):
        raise too_deep
    try:
        document = jsonc.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigFileError(
            f"{source}:{error.lineno}:{error.colno}: not valid JSON ({error.msg})"
        ) from None
    except RecursionError:  # deep, after a mistake that stopped the bounded parse early
        raise too_deep from None
    entries: list[ServerEntry] = []
    seen: dict[str, tuple[str, ServerEntry]] = {}
    for path, servers in _server_tables(document, source):
        for key, raw in servers.items():
            place = f"{path}.{key}"
            name = upstream_name(key)
            if not name:
                raise ConfigFileError(f"{place}: cannot make an upstream name from {key!r}")
            entry = _entry(name, raw, place, workspace)
            if name in seen:
                if seen[name][1] == entry:
                    continue  # the same server listed for several projects
                raise ConfigFileError(f"{place}: name {name!r} is also used by {seen[name][0]!r}")
            seen[name] = (place, entry)
            entries.append(entry)
    return entries


def _server_tables(document: Any, source: str) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(document, dict):
        raise ConfigFileError(f"{source}: expected a JSON object at the top level")
    mcp = document.get("mcp")
    tables: list[tuple[str, dict[str, Any]]] = []
    for path, value in (
        ("mcpServers", document.get("mcpServers")),
        ("servers", document.get("servers")),
        ("mcp.servers", mcp.get("servers") if isinstance(mcp, dict) else None),
    ):
        if value is None:
            continue
        if not isinstance(value, dict):
            raise ConfigFileError(f"{path}: expected an object mapping server names to settings")
        tables.append((path, value))
        break
    projects = document.get("projects")
    if isinstance(projects, dict):
        for folder, settings in projects.items():
            servers = settings.get("mcpServers") if isinstance(settings, dict) else None
            if isinstance(servers, dict):
                tables.append((f"projects[{folder}].mcpServers", servers))
    if not tables:
        raise ConfigFileError(
            f"{source}: no 'mcpServers' (Claude, Cursor, Windsurf, Cline) or 'servers' "
            "(VS Code) object found"
        )
    return tables


def _entry(name: str, raw: Any, place: str, workspace: str | None) -> ServerEntry:
    if not isinstance(raw, dict):
        raise ConfigFileError(f"{place}: expected an object")

    def text(value: str) -> str:
        value = convert(value).replace("${userHome}", "${HOME}")
        return value.replace("${workspaceFolder}", workspace) if workspace else value

    transport = _transport(raw, place)
    ignored = [key for key in APPROVAL_KEYS if key in raw]
    common = {
        "name": name,
        "transport": transport,
        "enabled": not _flag(raw.get("disabled", False), f"{place}.disabled"),
        "timeout": _timeout(raw.get("timeout"), f"{place}.timeout"),
        "notes": [f"{key} not used (approval is up to the client)" for key in ignored],
    }
    if transport == "stdio":
        return ServerEntry(
            **common,
            command=text(_string(raw.get("command"), f"{place}.command", required=True)),
            args=[text(a) for a in _strings(raw.get("args", []), f"{place}.args")],
            env={k: text(v) for k, v in _string_map(raw.get("env", {}), f"{place}.env").items()},
            env_file=text(_string(raw.get("envFile"), f"{place}.envFile")),
            cwd=text(_string(raw.get("cwd", ""), f"{place}.cwd")),
        )
    return ServerEntry(
        **common,
        url=text(_string(_url(raw), f"{place}.url", required=True)),
        headers={
            k: text(v) for k, v in _string_map(raw.get("headers", {}), f"{place}.headers").items()
        },
        oauth=_oauth_client(raw, place, text),
    )


def _oauth_client(raw: dict[str, Any], place: str, text: Any) -> OAuthClient | None:
    """The OAuth client of a remote server's entry; None without one (or `enabled: false`)."""
    for key, (id_key, secret_key, scopes_key) in OAUTH_KEYS.items():
        settings = raw.get(key)
        if settings is None:
            continue
        where = f"{place}.{key}"
        if not isinstance(settings, dict):
            raise ConfigFileError(f"{where}: expected an object")
        if settings.get("enabled", True) is False or id_key not in settings:
            return None
        scopes = settings.get(scopes_key, [])
        if isinstance(scopes, str):
            scopes = scopes.split()
        return OAuthClient(
            client_id=text(_string(settings[id_key], f"{where}.{id_key}", required=True)),
            client_secret=text(_string(settings.get(secret_key), f"{where}.{secret_key}")),
            scopes=" ".join(_strings(scopes, f"{where}.{scopes_key}")),
        )
    return None


def _url(raw: dict[str, Any]) -> Any:
    return next((raw[key] for key in URL_KEYS if key in raw), None)


def _transport(raw: dict[str, Any], place: str) -> str:
    kind = next((raw[key] for key in TYPE_KEYS if key in raw), None)
    if kind is not None and not isinstance(kind, str):
        raise ConfigFileError(f"{place}.type: expected a string")
    if kind is None:
        if "command" in raw:
            return "stdio"
        url = _url(raw)
        path = urlsplit(url).path if isinstance(url, str) else ""
        return "sse" if path.rstrip("/").endswith("/sse") else "http"
    transport = TRANSPORT_BY_TYPE.get(kind.lower())
    if transport is None:
        known = ", ".join(sorted(TRANSPORT_BY_TYPE))
        raise ConfigFileError(f"{place}.type: unknown transport {kind!r} (known: {known})")
    return transport


def _flag(value: Any, place: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigFileError(f"{place}: expected true or false")
    return value


def _timeout(value: Any, place: str) -> float | None:
    """Seconds, as Cline writes it; a value above an hour is read as milliseconds (Gemini)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigFileError(f"{place}: expected a positive number of seconds")
    seconds = value / 1000 if value > MAX_TIMEOUT_SECONDS else float(value)
    if seconds > MAX_TIMEOUT_SECONDS:
        raise ConfigFileError(f"{place}: at most {MAX_TIMEOUT_SECONDS} seconds")
    return seconds


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
        if isinstance(item, bool) or not isinstance(item, (int, float, str)):
            raise ConfigFileError(f"{place}.{key}: expected a string")
        result[key] = str(item)
    return result
