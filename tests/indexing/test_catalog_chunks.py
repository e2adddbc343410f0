"""Catalog documents are chunked as the Markdown chunker would, without its work."""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types
import pytest

from indexing.api import catalog_documents as docs
from indexing.engine.catalog_chunks import chunk_catalog_document
from indexing.engine.chunker import Chunk, DocumentFormat, OutlineEntry, chunk_document
from indexing.engine.chunker.markdown import MERGE_MIN_BYTES
from indexing.engine.chunker.sizing import TARGET_CHUNK_CHARS
from indexing.engine.store import SessionStore

CATALOGS = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "catalogs").glob("*.json"))


def fixture_documents() -> list[tuple[str, str]]:
    """Every document the captured catalogs give, as `CatalogView.documents` writes them."""
    found = []
    for path in CATALOGS:
        data = json.loads(path.read_text(encoding="utf-8"))
        server = path.stem
        if data["instructions"]:
            found.append(
                (
                    docs.server_label(server),
                    docs.instructions_document(server, data["instructions"]),
                )
            )
        for raw in data["tools"]:
            tool = types.Tool.model_validate(raw)
            name = f"{server}__{tool.name}"
            found.append((docs.tool_label(server, tool.name), docs.tool_document(name, tool)))
        for raw in data["prompts"]:
            prompt = types.Prompt.model_validate(raw)
            name = f"{server}__{prompt.name}"
            found.append(
                (docs.prompt_label(server, prompt.name), docs.prompt_document(name, prompt))
            )
        for raw in data["resources"]:
            resource = types.Resource.model_validate(raw)
            uri = str(resource.uri)
            found.append((docs.resource_label(server, uri), docs.resource_document(uri, resource)))
    return found


def assert_as_markdown_chunker(text: str) -> None:
    expected = chunk_document(text, DocumentFormat.MARKDOWN)
    parsed = chunk_catalog_document(text)
    assert parsed.format is expected.format is DocumentFormat.MARKDOWN
    assert parsed.chunks == expected.chunks
    assert parsed.outline == expected.outline
    assert list(parsed.lines) == list(expected.lines)
    assert [parsed.body(c) for c in parsed.chunks] == [expected.body(c) for c in expected.chunks]


def test_every_captured_catalog_document_chunks_as_the_markdown_chunker_does():
    documents = fixture_documents()
    assert len(documents) > 250
    for _, text in documents:
        assert_as_markdown_chunker(text)


def tool(description: str, title: str | None = None, **properties: dict) -> str:
    schema = {"type": "object", "properties": properties, "required": list(properties)[:1]}
    return docs.tool_document(
        "srv__t", types.Tool(name="t", title=title, description=description, input_schema=schema)
    )


def test_a_tool_is_its_heading_and_description_then_its_parameters():
    text = tool("Reads a file.\n\nSecond paragraph.\n\n", path={"type": "string"})
    parsed = chunk_catalog_document(text)
    assert parsed.chunks == [
        Chunk("srv__t", 1, 5),
        Chunk("srv__t > Parameters", 7, 8),
    ]
    assert parsed.outline == [OutlineEntry(1, "srv__t", 0), OutlineEntry(7, "Parameters", 1)]
    assert parsed.body(parsed.chunks[1]) == "## Parameters\n- `path` (string, required)"


@pytest.mark.parametrize(
    "text",
    [
        tool("Has a heading.\n\n# Usage\n\nRun it.", path={"type": "string"}),
        tool("Has a sub-section.\n### Notes\nMore.", path={"type": "string"}),
        tool("A fence:\n```json\n# not a heading\n```\nDone."),
        tool("A tilde fence:\n~~~\n## inside\n~~~"),
        tool("Setext\n======\ntext"),
        tool("Setext two\n---\ntext"),
        tool("A rule below\n\n---\n\nafter"),
        tool("   ## indented heading\ntext"),
        tool("Long. " * 400, path={"type": "string"}),
        tool("Short.", **{f"p{i}": {"type": "string", "description": "x" * 90} for i in range(30)}),
        tool("A parameter with Markdown", q={"type": "string", "description": "a\n## b\nc"}),
        tool("Windows line ends.\r\nSecond line.\r\n", path={"type": "string"}),
        tool("Titled", title="Fancy  title #"),
        tool("Titled", title="Ends with a hash #"),
        tool("Titled", title="x" * 200),
        tool("Titled", title="tab\there"),
        tool("Trailing blank lines are not chunked.\n \n\t\n"),
        tool(""),
        docs.instructions_document("srv", "Use it well.\n\n## Details\n\nMore."),
        docs.instructions_document("srv", "Plain instructions."),
        docs.resource_document("file:///a", types.Resource(uri="file:///a", name="a")),
        "",
        "no heading at all\n",
        "#NoSpace\n",
        "# Only a heading\n",
        "# A\n\n## B\n\n## C\n",
        "# A\n#\n",
        "# A\x00B\n\ntext\n",
    ],
)
def test_any_document_chunks_as_the_markdown_chunker_does(text):
    assert_as_markdown_chunker(text)


def test_search_hits_and_reads_serve_the_lines_the_chunks_cover():
    text = tool("Reads a file from disk.\n\nIt must exist.", path={"type": "string"})
    parsed = chunk_catalog_document(text)
    store = SessionStore()
    store.add_documents([("mcp/srv/tool/t", parsed)], tool="catalog", trigrams=False)
    (hit,) = store.search("disk", source="mcp/")
    assert (hit.title, hit.start_line, hit.end_line) == ("srv__t", 1, 5)
    read = store.read_lines("mcp/srv/tool/t", 1, 8, max_chars=10_000)
    assert [line.text for line in read] == text.splitlines()
    assert hit.body == "\n".join(text.splitlines()[0:5])


def test_most_captured_documents_need_no_markdown_parsing(monkeypatch):
    parsed_as_markdown = []

    def markdown(text, format):
        parsed_as_markdown.append(text)
        return chunk_document(text, format)

    monkeypatch.setattr("indexing.engine.catalog_chunks.chunk_document", markdown)
    documents = fixture_documents()
    for _, text in documents:
        chunk_catalog_document(text)
    # Long descriptions (a section over one chunk) and Markdown inside one take the long way.
    assert 0 < len(parsed_as_markdown) < len(documents) / 10


def test_the_shortcut_only_takes_documents_too_small_for_merged_sections():
    # Its one or two sections of at most TARGET_CHUNK_CHARS never reach MERGE_MIN_BYTES,
    # where the Markdown chunker starts merging small sections.
    assert 2 * TARGET_CHUNK_CHARS < MERGE_MIN_BYTES
    assert max(len(text.encode()) for _, text in fixture_documents()) < MERGE_MIN_BYTES


def test_long_instructions_with_merged_sections_chunk_as_the_markdown_chunker_does():
    topics = "".join(f"## Topic {n}\n\nSome advice on topic {n}.\n\n" for n in range(600))
    text = docs.instructions_document("srv", topics)
    assert len(text.encode()) >= MERGE_MIN_BYTES
    assert_as_markdown_chunker(text)
    chunks = chunk_catalog_document(text).chunks
    assert len(chunks) == 600 // 8 + 1
    assert chunks[0].title == "Instructions of srv; " + "; ".join(f"Topic {n}" for n in range(7))
    assert chunks[1].title == "Instructions of srv > Topic 7; " + "; ".join(
        f"Topic {n}" for n in range(8, 15)
    )
