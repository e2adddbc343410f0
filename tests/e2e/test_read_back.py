"""Files read through server-filesystem come back from IndexRead exactly as they are on disk."""

import json
import re

import pytest

from tests.readback import footer_offset, join_read

pytestmark = pytest.mark.anyio

HEADER = re.compile(r'^\[Response compressed — \d+ bytes, (\d+) lines, indexed as "([^"]+)"(.*)\]$')
ENTRY = re.compile(r"^(\d+)(?:-\d+)?: ?(.*)$", re.S)
HIT = re.compile(r"^\[\d+\] (\S+) lines? (\d+)(?:-(\d+))?", re.M)


def text_of(result) -> str:
    return result.content[0].text


def api_model() -> str:
    """A 4-space-indented API model with long lines and arrays kept on one line."""

    def fields(n: int) -> str:
        return ", ".join(f'"f{n}_{k}"' for k in range(9))

    rows = ",\n".join(
        f'        "Model{n}": {{"id": {n}, "fields": [{fields(n)}],'
        f' "note": "model {n} \\"quoted\\" 1.50E+3"}}'
        for n in range(400)
    )
    return '{\n    "openapi": "3.1.0",\n    "schemas": {\n' + rows + '\n    },\n    "x": []\n}\n'


def files() -> dict[str, bytes]:
    csv = "".join(f"{n},name {n},{n * 1.5:.2f}\r\n" for n in range(2000))
    notes = "".join(f"\tnote {n}: café ✓\n" for n in range(1500)).rstrip("\n")
    # Large enough that both its texts span several packed blocks (32 KiB each).
    minified = json.dumps({"items": [{"id": n, "name": f"item {n}"} for n in range(3000)]})
    return {
        "api-model.json": api_model().encode(),
        "table.csv": csv.encode(),
        "notes.txt": notes.encode(),  # no final newline
        "minified.json": minified.encode(),
    }


async def index(client, path) -> tuple[str, int, str, str]:
    """(label, line count, the rest of the header, placeholder) of a file read and indexed."""
    placeholder = text_of(await client.call_tool("files__read_text_file", {"path": str(path)}))
    match = HEADER.match(placeholder.split("\n")[0])
    assert match, placeholder[:300]
    return match[2], int(match[1]), match[3], placeholder


async def read_pages(client, label: str, *, raw: bool = False, limit: int = 150) -> list[str]:
    pages, offset = [], None
    while True:
        arguments = {"label": label, "limit": limit, "raw": raw}
        if offset is not None:
            arguments["offset"] = offset
        page = await client.call_tool("IndexRead", arguments)
        assert not page.is_error, text_of(page)
        pages.append(text_of(page))
        offset = footer_offset(pages[-1])
        if offset is None:
            return pages


async def test_files_read_page_by_page_are_their_bytes(live, shared_files):
    for name, content in files().items():
        (shared_files / name).write_bytes(content)
    async with live.client("alice") as client:
        for name, content in files().items():
            label, lines, rest, _ = await index(client, shared_files / name)
            raw = name == "minified.json"
            assert (rest == ", pretty-printed from 1 line") is raw, rest
            assert join_read(await read_pages(client, label, raw=raw)).encode() == content, name
            if not raw:
                text = content.decode()
                assert lines == text.count("\n") + (not text.endswith("\n")), name


async def test_a_snippet_copied_from_a_read_is_found_verbatim_in_the_file(live, shared_files):
    for name in ("api-model.json", "table.csv"):
        content = files()[name]
        (shared_files / name).write_bytes(content)
        async with live.client("alice") as client:
            label, *_ = await index(client, shared_files / name)
            page = text_of(
                await client.call_tool("IndexRead", {"label": label, "offset": "40", "limit": 3})
            )
        rows = [ENTRY.match(row) for row in page.split("\n")]
        snippet = "\n".join(row[2] for row in rows if row)
        assert snippet.count("\n") == 2 and snippet.encode() in content, snippet


async def test_contents_and_search_hits_name_the_files_own_lines(live, shared_files):
    content = api_model()
    (shared_files / "api-model.json").write_text(content)
    file_lines = content.split("\n")
    async with live.client("alice") as client:
        label, _, _, placeholder = await index(client, shared_files / "api-model.json")
        found = text_of(
            await client.call_tool("IndexSearch", {"queries": ["Model317"], "source": label})
        )
    entries = re.findall(r"^- \[L(\d+)\] (\S+)$", placeholder, re.M)
    assert [name for _, name in entries] == ["openapi", "schemas", "x"]
    for line, name in entries:
        assert file_lines[int(line) - 1].lstrip().startswith(f'"{name}"')
    model = next(n for n, line in enumerate(file_lines, 1) if '"Model317"' in line)
    hits = [(int(first), int(last or first)) for _, first, last in HIT.findall(found)]
    assert any(first <= model <= last for first, last in hits), found[:500]
