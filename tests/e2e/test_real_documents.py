"""Real documents through server-filesystem: found from start to end, read back byte for byte."""

import re

import pytest

from tests.readback import footer_offset, join_read

pytestmark = pytest.mark.anyio

HEADER = re.compile(r'indexed as "(files__read_text_file:\d+)"\]')
HIT = re.compile(r"^\[\d+\] (\S+) lines? (\d+)(?:-(\d+))?")

# document -> (query, a substring of the line that answers it), from its start, middle and end.
FACTS = {
    "bash.1": [
        (["GNU Bourne-Again SHell"], "GNU Bourne-Again SHell"),
        (["HISTCONTROL ignoredups"], "ignoredups"),
        (["too big and too slow"], "too big and too slow"),
    ],
    "query.py": [
        (["main QuerySet implementation"], "The main QuerySet implementation"),
        (["bulk_create batch_size"], "def bulk_create("),
        (["get_related_populators"], "def get_related_populators("),
    ],
    "coreutils.changelog": [
        (["printf single quote behavior"], "Corrects printf single quote behavior"),
        (["futimens cu_futimens glibc"], "rename futimens to cu_futimens"),
        (["Replaces fileutils shellutils textutils"], "Replaces fileutils, shellutils"),
    ],
    "package-lock.json": [
        (["localrouter-test-upstreams"], '"name": "localrouter-test-upstreams"'),
        (["node_modules/qs"], '"node_modules/qs": {'),
        (["node_modules/zod"], '"node_modules/zod": {'),
    ],
}


def text_of(result) -> str:
    return result.content[0].text


async def read_back(client, label: str) -> str:
    """Page through IndexRead from line 1 and rebuild the document by the documented rule."""
    pages: list[str] = []
    offset: str | None = "1"
    while offset is not None:
        page = await client.call_tool("IndexRead", {"label": label, "offset": offset})
        assert not page.is_error, text_of(page)
        pages.append(text_of(page))
        offset = footer_offset(pages[-1])
    return join_read(pages)


async def index(client, folder, name: str) -> str:
    result = await client.call_tool("files__read_text_file", {"path": str(folder / name)})
    label = HEADER.search(text_of(result))
    assert label, text_of(result)[:300]
    return label.group(1)


@pytest.mark.parametrize("name", sorted(FACTS))
async def test_facts_from_start_middle_and_end_are_found(live, shared_files, name):
    lines = (shared_files / name).read_text().splitlines()
    async with live.client("alice") as client:
        label = await index(client, shared_files, name)
        for queries, answer in FACTS[name]:
            wanted = {n for n, line in enumerate(lines, start=1) if answer in line}
            assert wanted, answer
            found = text_of(
                await client.call_tool("IndexSearch", {"queries": queries, "source": label})
            )
            covered = set()
            for match in map(HIT.match, found.split("\n")):
                if match and match.group(1) == label:
                    first = int(match.group(2))
                    covered |= set(range(first, int(match.group(3) or first) + 1))
            assert covered & wanted, f"{queries} -> {found[:500]}"


@pytest.mark.parametrize(
    "name", ["bash.1", "query.py", "coreutils.changelog", "package-lock.json", "react-icons.min.js"]
)
async def test_reading_every_page_gives_back_the_original(live, shared_files, name):
    original = (shared_files / name).read_text()
    async with live.client("alice") as client:
        label = await index(client, shared_files, name)
        rebuilt = await read_back(client, label)
    assert rebuilt == original


async def test_search_points_into_a_part_of_a_very_long_line(live, shared_files):
    async with live.client("alice") as client:
        label = await index(client, shared_files, "react-icons.min.js")
        found = text_of(
            await client.call_tool("IndexSearch", {"queries": ["ArrowRightIcon"], "source": label})
        )
    assert re.search(r'line 1 part \d+ \(offset "1-\d+"\)', found), found[:300]
