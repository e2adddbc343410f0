"""Credentials masked in tool results and resource reads before the client or the index
sees them.

Text parts, embedded text resources and every string of the structured content are
scanned (`indexing.engine.secrets`); images, audio, binary resources and links pass as
they are. A result without credentials is returned as the same object.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import mcp_types as types

from indexing.engine.secrets.scanner import SecretScanner

SCANNER = SecretScanner()
IN_THREAD_FROM = 256 * 1024
"""Results with more text than this (characters) are scanned on a worker thread."""


async def mask_result(result: types.CallToolResult) -> tuple[types.CallToolResult, Counter[str]]:
    """The result with its credentials masked, and how many of each kind were masked.

    Structured content usually repeats the text: a credential masked in both counts once.
    """
    texts = sum(len(part.text) for part in result.content if isinstance(part, types.TextContent))
    if texts > IN_THREAD_FROM:
        return await asyncio.to_thread(mask_result_now, result)
    return mask_result_now(result)


def mask_result_now(result: types.CallToolResult) -> tuple[types.CallToolResult, Counter[str]]:
    """`mask_result` on this thread."""
    counts: Counter[str] = Counter()
    content = [_masked_part(part, counts) for part in result.content]
    structured_counts: Counter[str] = Counter()
    structured = result.structured_content
    if structured is not None:
        structured = _masked_value(structured, structured_counts)
    if not counts and not structured_counts:
        return result, counts
    masked = result.model_copy(update={"content": content, "structured_content": structured})
    return masked, counts | structured_counts


def mask_resource_now(
    result: types.ReadResourceResult,
) -> tuple[types.ReadResourceResult, Counter[str]]:
    """A `resources/read` result with the credentials of its text contents masked (blobs pass
    as they are), and how many of each kind were masked."""
    counts: Counter[str] = Counter()
    contents = [_masked_contents(item, counts) for item in result.contents]
    if not counts:
        return result, counts
    return result.model_copy(update={"contents": contents}), counts


def _masked_contents(
    item: types.TextResourceContents | types.BlobResourceContents, counts: Counter[str]
) -> types.TextResourceContents | types.BlobResourceContents:
    if isinstance(item, types.TextResourceContents):
        masked = SCANNER.mask(item.text)
        if masked.counts:
            counts.update(masked.counts)
            return item.model_copy(update={"text": masked.text})
    return item


def _masked_part(part: types.ContentBlock, counts: Counter[str]) -> types.ContentBlock:
    if isinstance(part, types.TextContent):
        masked = SCANNER.mask(part.text)
        if masked.counts:
            counts.update(masked.counts)
            return part.model_copy(update={"text": masked.text})
    elif isinstance(part, types.EmbeddedResource):
        resource = _masked_contents(part.resource, counts)
        if resource is not part.resource:
            return part.model_copy(update={"resource": resource})
    return part


def _masked_value(value: Any, counts: Counter[str]) -> Any:
    """A JSON value with its strings masked (keys are names, not secrets: left as they are)."""
    if isinstance(value, str):
        masked = SCANNER.mask(value)
        counts.update(masked.counts)
        return masked.text
    if isinstance(value, dict):
        return {key: _masked_value(item, counts) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked_value(item, counts) for item in value]
    return value
