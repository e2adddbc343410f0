"""The size of a tool result as the client reads it, for reports, metrics and limits."""

from __future__ import annotations

import mcp_types as types
import orjson

from indexing.engine.text import utf8_size


def result_size(result: types.CallToolResult) -> int:
    """UTF-8 bytes of a result's content as the client reads it: text, binary payloads as
    sent (base64) and structured content. Counted from the strings at hand; only structured
    content (usually small) is serialised, at C speed."""
    size = sum(_part_size(part) for part in result.content)
    if result.structured_content is not None:
        size += len(orjson.dumps(result.structured_content, default=str))
    return size


def _part_size(part: types.ContentBlock) -> int:
    if isinstance(part, types.TextContent):
        return utf8_size(part.text)
    if isinstance(part, types.ImageContent | types.AudioContent):
        return len(part.data)
    if isinstance(part, types.EmbeddedResource):
        resource = part.resource
        if isinstance(resource, types.TextResourceContents):
            return utf8_size(resource.text)
        return len(resource.blob)
    return utf8_size(str(part.uri))  # a resource link
