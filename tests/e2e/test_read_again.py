"""A file read again is searched with its vectors at once, even while the worker embeds."""

import uuid

import anyio
import pytest

from tests.e2e.test_real_documents import HIT, index, text_of

pytestmark = pytest.mark.anyio

KEYWORDS_ALONE = "Ranked by keywords alone"
QUESTION = "open a compressed file for reading"


async def search(client, label: str) -> str:
    found = text_of(await client.call_tool("IndexSearch", {"queries": [QUESTION], "source": label}))
    assert any(match and match.group(1) == label for match in map(HIT.match, found.split("\n")))
    return found


async def test_a_file_read_again_takes_its_vectors_while_another_is_embedded(live, shared_files):
    unique = uuid.uuid4().hex  # contents no session of the worker embedded before
    small = shared_files / f"{unique}-zlib.h"  # over the 16 KiB threshold: indexed
    small.write_text((shared_files / "zlib.h").read_text()[:24_000] + f"\n/* {unique} */\n")
    big = shared_files / f"{unique}-query.py"
    big.write_text((shared_files / "query.py").read_text() + f"\n# {unique}\n")
    async with live.client("grace") as client:  # vector search on
        first = await index(client, shared_files, small.name)
        with anyio.fail_after(300):  # seconds of CPU; minutes on a loaded 2-CPU machine
            while KEYWORDS_ALONE in await search(client, first):
                await anyio.sleep(0.5)
        await index(client, shared_files, big.name)  # 120 KB: the queue embeds it for a while
        again = await index(client, shared_files, small.name)
        assert again != first
        found = await search(client, again)  # at once: not behind the job running
    assert KEYWORDS_ALONE not in found, found[-400:]
