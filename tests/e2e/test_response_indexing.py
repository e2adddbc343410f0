"""Large tool responses are indexed and replaced by a placeholder; nothing is lost."""

import re

import pytest

pytestmark = pytest.mark.anyio

HEADER = re.compile(
    r'^\[Response compressed — (\d+) bytes, (\d+) lines, indexed as "(files__read_text_file:\d+)"\]'
)
NUMBERED = re.compile(r"^(\d+):(?: (.*))?$")
FOOTER = re.compile(r'^\[(\d+) more lines? — continue with offset="(\d+)"\]$')


def text_of(result) -> str:
    return result.content[0].text


async def read_everything(client, label: str) -> list[str]:
    """Page through IndexRead until it has no footer; return the lines it served."""
    lines: list[str] = []
    offset = "1"
    while offset is not None:
        page = text_of(await client.call_tool("IndexRead", {"label": label, "offset": offset}))
        offset = None
        for row in page.split("\n"):
            if match := NUMBERED.match(row):
                lines.append(match.group(2) or "")
            elif match := FOOTER.match(row):
                offset = match.group(2)
    return lines


async def test_a_large_file_becomes_a_placeholder_that_reads_back_in_full(live, shared_files):
    source = (shared_files / "query.py").read_text()
    async with live.client("alice") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"IndexSearch", "IndexRead"} <= names
        result = await client.call_tool(
            "files__read_text_file", {"path": str(shared_files / "query.py")}
        )
        placeholder = text_of(result)
        header = HEADER.match(placeholder)
        assert header, placeholder[:200]
        assert int(header.group(1)) == len(source.encode())
        assert int(header.group(2)) == len(source.splitlines())
        label = header.group(3)
        assert len(placeholder.encode()) < 6_000
        assert "## Contents" in placeholder and "class QuerySet" in placeholder
        assert f'Search it:      IndexSearch(queries=["<terms>"], source="{label}")' in placeholder

        found = text_of(
            await client.call_tool(
                "IndexSearch", {"queries": ["bulk_create batch_size"], "source": label}
            )
        )
        assert label in found and "def bulk_create" in found

        assert await read_everything(client, label) == source.splitlines()


async def test_a_client_with_indexing_off_gets_the_whole_response(live, shared_files):
    source = (shared_files / "query.py").read_text()
    async with live.client("dave") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "IndexSearch" not in names and "IndexRead" not in names
        result = await client.call_tool(
            "files__read_text_file", {"path": str(shared_files / "query.py")}
        )
    assert text_of(result) == source


async def test_small_responses_pass_through_untouched(live):
    async with live.client("alice") as client:
        result = await client.call_tool("echohttp__big_text", {"size": 16_000})
    assert text_of(result) == "x" * 16_000


async def test_text_and_text_resources_are_indexed_and_other_parts_kept(live):
    async with live.client("alice") as client:
        result = await client.call_tool("echohttp__mixed_parts", {"lines": 3000})
        placeholder, image, blob = result.content
        label = re.search(r'indexed as "(echohttp__mixed_parts:\d+)"', placeholder.text)[1]
        lines = await read_everything(client, label)
    assert placeholder.text.startswith("[Response compressed — 77999 bytes, 6000 lines")
    assert (image.type, image.mime_type, len(image.data)) == ("image", "image/png", 96)
    assert (blob.resource.uri, blob.resource.blob) == ("fixture://data.bin", "AAEC")
    assert lines == ["report line"] * 3000 + ["appendix line"] * 3000


async def test_index_tools_report_bad_arguments_as_tool_errors(live):
    async with live.client("alice") as client:
        missing = await client.call_tool("IndexRead", {"label": "nothing:1"})
        hostile = await client.call_tool(
            "IndexSearch", {"queries": ['NEAR("x" *', "title:^-"], "limit": 3}
        )
        bad_offset = await client.call_tool("IndexRead", {"label": "x:1", "offset": "3-0"})
    assert missing.is_error and "nothing:1" in text_of(missing)
    assert not hostile.is_error
    assert text_of(hostile).startswith('Query 1: "NEAR(')
    assert bad_offset.is_error
