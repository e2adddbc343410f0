"""Tools as real servers list them, made fit for strict clients.

- An input schema without `"type"` (seen as `{}` or bare `properties`) becomes an object
  schema: clients that validate tool lists reject a schema that is not `"type": "object"`.
- A tool name listed twice by one server keeps its first definition; the repeat is
  dropped and logged once per listing (a call by that name reaches the upstream anyway).
"""

from __future__ import annotations

import logging

import mcp_types as types

logger = logging.getLogger(__name__)


def object_schema(schema: dict) -> dict:
    """`schema` with `"type": "object"` (and `properties`) when it names no type."""
    if "type" in schema:
        return schema
    return {"type": "object", "properties": {}, **schema}


def usable_tools(upstream: str, tools: list[types.Tool]) -> list[types.Tool]:
    """The tools with object schemas, first definition of each name only."""
    kept: dict[str, types.Tool] = {}
    repeated: list[str] = []
    for tool in tools:
        if tool.name in kept:
            repeated.append(tool.name)
            continue
        schema = object_schema(tool.input_schema)
        if schema is not tool.input_schema:
            tool = tool.model_copy(update={"input_schema": schema})
        kept[tool.name] = tool
    if repeated:
        logger.warning(
            "upstream %r lists these tool names more than once; the first of each is kept: %s",
            upstream,
            ", ".join(sorted(set(repeated))),
        )
    return list(kept.values())
