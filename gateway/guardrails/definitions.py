"""What of a tool (or a server's instructions) is pinned: its definition and its digest.

The definition is what a model reads of a tool: name, description and input and output
schemas. Its digest is a SHA-256 of its canonical JSON, so a changed word or schema key
changes it and nothing else does (key order, whitespace).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import mcp_types as types

INSTRUCTIONS = "instructions"
TOOL = "tool"


def tool_definition(tool: types.Tool) -> dict[str, Any]:
    """The parts of a tool that are pinned (as the upstream names it)."""
    return {
        "name": tool.name,
        "description": tool.description or "",
        "inputSchema": tool.input_schema,
        "outputSchema": tool.output_schema,
    }


def instructions_definition(text: str) -> dict[str, Any]:
    return {"instructions": text}


def digest(definition: dict[str, Any]) -> str:
    """SHA-256 (hex) of the definition's canonical JSON."""
    canonical = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def definition_lines(definition: dict[str, Any] | None) -> list[str]:
    """A definition as the lines a diff compares (indented JSON, keys in order)."""
    if not definition:
        return []
    return json.dumps(definition, sort_keys=True, indent=2, ensure_ascii=False).splitlines()
