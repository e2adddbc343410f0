"""Mend what real servers send before the SDK validates it (a bad page would lose every tool).

A tool whose `inputSchema` (or `outputSchema`) has no `"type"` -- seen as `{}` or as bare
`properties` -- makes the SDK reject the whole `tools/list` page. Such a schema is read as
the object schema it means: `"type": "object"` is added (and `properties: {}` if absent),
so strict clients of the gateway accept it too.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage


def object_schema(schema: Any) -> dict[str, Any]:
    """`schema` as an object schema when it names no type (a non-dict becomes `{}`)."""
    if not isinstance(schema, dict):
        schema = {}
    if "type" in schema:
        return schema
    return {"type": "object", "properties": {}, **schema}


def mend(item: SessionMessage | Exception) -> SessionMessage | Exception:
    """The incoming message with untyped tool schemas made object schemas (in place)."""
    if not isinstance(item, SessionMessage) or not isinstance(item.message, types.JSONRPCResponse):
        return item
    tools = item.message.result.get("tools")
    if isinstance(tools, list):
        for tool in tools:
            if not isinstance(tool, dict):
                continue
            tool["inputSchema"] = object_schema(tool.get("inputSchema"))
            if "outputSchema" in tool and tool["outputSchema"] is not None:
                tool["outputSchema"] = object_schema(tool["outputSchema"])
    return item
