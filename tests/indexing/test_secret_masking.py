"""Tool results are masked in their text, embedded text resources and structured content."""

import mcp_types as types
import pytest

from indexing.api import secret_masking
from indexing.api.secret_masking import mask_resource_now, mask_result
from tests.fixtures import secret_corpus

pytestmark = pytest.mark.anyio
SECRETS = {item.kind: item.secret for item in secret_corpus.secrets()}
TOKEN = SECRETS["github token"]
JWT = SECRETS["jwt"]
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQ"
    "DwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


async def test_text_embedded_text_and_structured_content_are_masked_other_parts_kept():
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text=f"token: {TOKEN}"),
            types.ImageContent(type="image", data=PNG, mime_type="image/png"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="file:///a.env", text=f"JWT={JWT}\n"),
            ),
        ],
        structured_content={"token": TOKEN, "nested": [{"jwt": JWT}, 3, None]},
    )
    masked, counts = await mask_result(result)
    assert masked.content[0].text == "token: [masked: github token]"
    assert masked.content[1] == result.content[1]
    assert masked.content[2].resource.text == "JWT=[masked: jwt]\n"
    assert masked.structured_content == {
        "token": "[masked: github token]",
        "nested": [{"jwt": "[masked: jwt]"}, 3, None],
    }
    # The structured content repeats the text: each credential counts once.
    assert dict(counts) == {"github token": 1, "jwt": 1}
    assert TOKEN in result.content[0].text  # the upstream's result is not changed in place


async def test_a_result_without_credentials_is_the_same_object():
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="nothing to see")],
        structured_content={"result": "nothing to see"},
    )
    masked, counts = await mask_result(result)
    assert masked is result and not counts


async def test_error_results_are_masked_too():
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text=f"auth failed for {TOKEN}")], is_error=True
    )
    masked, _ = await mask_result(result)
    assert masked.is_error and masked.content[0].text == "auth failed for [masked: github token]"


async def test_a_large_result_is_masked_the_same_on_a_worker_thread(monkeypatch):
    monkeypatch.setattr(secret_masking, "IN_THREAD_FROM", 10)
    text = f"line\n{TOKEN}\n" * 3
    masked, counts = await mask_result(
        types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    )
    assert masked.content[0].text == "line\n[masked: github token]\n" * 3
    assert dict(counts) == {"github token": 3}


async def test_a_resource_read_is_masked_in_its_text_contents_and_blobs_kept():
    result = types.ReadResourceResult(
        contents=[
            types.TextResourceContents(uri="file:///a.env", text=f"TOKEN={TOKEN}"),
            types.BlobResourceContents(uri="file:///a.bin", blob=PNG),
        ]
    )
    masked, counts = mask_resource_now(result)
    assert masked.contents[0].text == "TOKEN=[masked: github token]"
    assert masked.contents[1] == result.contents[1] and dict(counts) == {"github token": 1}
    clean = types.ReadResourceResult(contents=[result.contents[1]])
    assert mask_resource_now(clean)[0] is clean
