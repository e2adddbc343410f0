"""Context management on MCP tool results: compress large ones, serve IndexSearch/IndexRead.

Plain Python over the SDK's types; the gateway session calls these.

Structured content: when a result is compressed, its `structuredContent` (which
duplicates the text) is dropped with the text, so the client never receives the
whole payload again. To keep such a result valid, the gateway lists tools without
their `outputSchema` to clients that have indexing on (see `strip_output_schema`).
"""

from __future__ import annotations

import asyncio
import logging

import mcp_types as types

from indexing.api.background import log_failure
from indexing.engine.arguments import MAX_QUERIES
from indexing.engine.compressor import Compression, ResponseCompressor
from indexing.engine.errors import IndexToolError
from indexing.engine.read import DEFAULT_READ_LINES, format_read
from indexing.engine.search import DEFAULT_HITS, MAX_HITS, Ranker, search_with_labels
from indexing.engine.store import SessionStore

logger = logging.getLogger(__name__)
INDEXING_FAILED = log_failure(logger, "Indexing a compressed response failed")


def index_tools(search_name: str, read_name: str) -> list[types.Tool]:
    """The two virtual tools every session with indexing on sees."""
    search = types.Tool(
        name=search_name,
        title="Search indexed content",
        description=(
            "Search large tool responses (and the tool catalog) that were indexed instead of "
            "being returned in full. Ask several questions in one call. Each hit shows its "
            "label, the lines it covers and up to ~3,000 characters of context; read more "
            f"with {read_name}."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "queries": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "maxItems": MAX_QUERIES,
                    "description": "Search terms, one string per question.",
                },
                "source": {
                    "type": "string",
                    "description": "Only labels starting with this, e.g. 'mcp/' for the "
                    "tool catalog, or 'jira__getIssue:' for one tool's responses; a label "
                    "from a '[Response compressed …]' notice searches that response only.",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "default": DEFAULT_HITS,
                    "description": f"Hits per query (default {DEFAULT_HITS}); more than "
                    f"{MAX_HITS} counts as {MAX_HITS}.",
                },
            },
            "required": ["queries"],
        },
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    read = types.Tool(
        name=read_name,
        title="Read indexed content",
        description=(
            "Read the numbered lines of an indexed response by its label. Returns up to 200 "
            "lines (at most ~64 KB) and says how to continue. Lines are the text as sent, "
            "split at \\n only (a \\r stays in its line); the N-M parts of a long line join "
            "as they are. Minified JSON is served pretty-printed; raw=true reads it as sent."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "label": {"type": "string", "description": 'The label, e.g. "files__read_file:3".'},
                "offset": {
                    "type": "string",
                    "description": 'First line to read: "N", or "N-M" for part M of a long line N.',
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "default": DEFAULT_READ_LINES,
                    "description": f"Number of lines (default {DEFAULT_READ_LINES}).",
                },
                "raw": {
                    "type": "boolean",
                    "default": False,
                    "description": "Read as sent a response served pretty-printed (minified "
                    "JSON: one line over 2,000 characters holding 90% of the text).",
                },
            },
            "required": ["label"],
        },
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    return [search, read]


def strip_output_schema(tool: types.Tool) -> types.Tool:
    """The tool as listed to a client whose large results may be compressed."""
    return tool.model_copy(update={"output_schema": None}) if tool.output_schema else tool


def text_result(text: str, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


async def run_index_tool(
    store: SessionStore, *, search: bool, arguments: dict | None, rank: Ranker | None = None
) -> tuple[types.CallToolResult, list[str]]:
    """Serve one IndexSearch or IndexRead call, with the labels it showed.

    Bad arguments are tool errors, never exceptions.
    """
    args = arguments or {}
    try:
        if search:
            text, labels = await asyncio.to_thread(
                search_with_labels,
                store,
                args.get("queries"),
                args.get("source"),
                args.get("limit"),
                rank,
            )
        else:
            text = await asyncio.to_thread(
                format_read,
                store,
                args.get("label"),
                args.get("offset"),
                args.get("limit"),
                args.get("raw"),
            )
            labels = [args["label"]]
    except IndexToolError as error:
        return text_result(error.message, error=True), []
    return text_result(text), labels


async def compress_result(
    result: types.CallToolResult,
    compressor: ResponseCompressor,
    *,
    tool_name: str,
    threshold: int,
    search_tool: str,
    read_tool: str,
) -> tuple[types.CallToolResult, Compression | None]:
    """Return the placeholder result for a large result, or the result as is.

    The placeholder is returned once the text is chunked; the store is written in the
    background (`Compression.index`), and searches and reads of it wait for that.
    Error results pass through. Text parts and embedded text resources are indexed as one
    document, joined by newlines; other parts (images, audio, binary resources, links) are
    kept, after the placeholder.
    """
    if result.is_error:
        return result, None
    texts = [text for part in result.content if (text := _text_of(part)) is not None]
    if sum(len(text) for text in texts) * 4 <= threshold:
        return result, None  # surely small enough: skip the worker thread
    compression = await asyncio.to_thread(
        compressor.prepare,
        tool_name,
        "\n".join(texts),
        threshold=threshold,
        search_tool=search_tool,
        read_tool=read_tool,
    )
    if compression is None:
        return result, None
    # The writer is on its own thread.
    compression.indexed.add_done_callback(INDEXING_FAILED)
    others = [part for part in result.content if _text_of(part) is None]
    content = [types.TextContent(type="text", text=compression.placeholder), *others]
    return result.model_copy(update={"content": content, "structured_content": None}), compression


def _text_of(part: types.ContentBlock) -> str | None:
    """The text a content part carries for indexing: a text part's, an embedded text
    resource's; None for the rest."""
    if isinstance(part, types.TextContent):
        return part.text
    if isinstance(part, types.EmbeddedResource) and isinstance(
        part.resource, types.TextResourceContents
    ):
        return part.resource.text
    return None
