"""The bytes a session counts for a tool result: UTF-8 of its content, without serialising it."""

import mcp_types as types

from indexing.api.result_size import result_size

PIXEL = "iVBORw0KGgo="


def test_text_is_counted_in_utf8_bytes_not_characters():
    ascii_only = types.CallToolResult(content=[types.TextContent(type="text", text="abc")])
    accented = types.CallToolResult(content=[types.TextContent(type="text", text="é€😀")])
    assert result_size(ascii_only) == 3
    assert result_size(accented) == len("é€😀".encode()) == 9


def test_every_part_counts_binary_payloads_as_sent():
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="hi"),
            types.ImageContent(type="image", data=PIXEL, mime_type="image/png"),
            types.AudioContent(type="audio", data="AAEC", mime_type="audio/wav"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="file:///a", text="ü"),
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(uri="file:///b", blob="AAEC"),
            ),
            types.ResourceLink(type="resource_link", uri="file:///c", name="c"),
        ]
    )
    assert result_size(result) == 2 + len(PIXEL) + 4 + 2 + 4 + len("file:///c")


def test_structured_content_counts_as_its_compact_json():
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="ok")],
        structured_content={"temperature": 21.5, "city": "Zürich"},
    )
    compact = '{"temperature":21.5,"city":"Zürich"}'
    assert result_size(result) == 2 + len(compact.encode())
