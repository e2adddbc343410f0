"""Catalog items as documents to search: tool definitions, server instructions, prompts.

Labels: `mcp/<server>` (instructions), `mcp/<server>/tool/<name>`,
`mcp/<server>/prompt/<name>`, `mcp/<server>/resource/<uri>`.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

CATALOG_PREFIX = "mcp/"
"""What every catalog document's label starts with (a response's never does)."""


def tool_label(server: str, name: str) -> str:
    return f"{CATALOG_PREFIX}{server}/tool/{name}"


def prompt_label(server: str, name: str) -> str:
    return f"{CATALOG_PREFIX}{server}/prompt/{name}"


def resource_label(server: str, uri: str) -> str:
    return f"{CATALOG_PREFIX}{server}/resource/{uri}"


def server_label(server: str) -> str:
    return f"{CATALOG_PREFIX}{server}"


def _parameters(schema: dict[str, Any], prefix: str = "") -> list[str]:
    lines = []
    required = set(schema.get("required") or [])
    for name, spec in (schema.get("properties") or {}).items():
        if not isinstance(spec, dict):
            continue
        kind = spec.get("type") or ("enum" if "enum" in spec else "value")
        flag = ", required" if name in required else ""
        text = f"- `{prefix}{name}` ({kind}{flag})"
        if spec.get("description"):
            text += f": {spec['description']}"
        if spec.get("enum"):
            text += " One of: " + ", ".join(map(str, spec["enum"][:20]))
        lines.append(text)
        if isinstance(spec.get("properties"), dict):
            lines.extend(_parameters(spec, prefix=f"{prefix}{name}."))
    return lines


def tool_document(exposed_name: str, tool: types.Tool) -> str:
    """A tool definition written to read well as a search document."""
    heading = f"# {exposed_name}"
    if tool.title:
        heading += f" — {tool.title}"
    parts = [heading, "", (tool.description or "(no description)").strip(), "", "## Parameters"]
    parameters = _parameters(tool.input_schema or {})
    parts.extend(parameters or ["(none)"])
    # The schema itself is not indexed: activation shows it, and its JSON drowns the words.
    return "\n".join(parts) + "\n"


def prompt_document(exposed_name: str, prompt: types.Prompt) -> str:
    parts = [
        f"# {exposed_name} (prompt)",
        "",
        (prompt.description or "").strip(),
        "",
        "## Arguments",
    ]
    for argument in prompt.arguments or []:
        required = ", required" if argument.required else ""
        parts.append(f"- `{argument.name}`{required}: {argument.description or ''}")
    return "\n".join(parts) + "\n"


def resource_document(uri: str, resource: types.Resource | types.ResourceTemplate) -> str:
    name = getattr(resource, "name", "") or uri
    parts = [f"# {name} (resource)", "", f"URI: {uri}", "", (resource.description or "").strip()]
    if resource.mime_type:
        parts.append(f"Type: {resource.mime_type}")
    return "\n".join(parts) + "\n"


def instructions_document(server: str, text: str) -> str:
    return f"# Instructions of {server}\n\n{text.strip()}\n"
