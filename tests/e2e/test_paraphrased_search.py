"""A question worded as someone who never read the document asks it finds the answer line.

The questions share no word with their answer lines (the document names the function that
does what the user wants); they come from the retrieval benchmark's dev split.
"""

import re

import pytest

from tests.e2e.test_real_documents import HIT, index, text_of

pytestmark = pytest.mark.anyio

# document -> (question, the answer line's text), neither sharing a word with the other.
PARAPHRASES = {
    "zlib.h": (
        "open a .gz file for reading",
        "ZEXTERN gzFile ZEXPORT gzopen OF((const char *path, const char *mode));",
    ),
    "response.js": (
        "make the browser save the file with a name",
        "res.download = function download (path, filename, options, callback) {",
    ),
}


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


@pytest.mark.parametrize("name", sorted(PARAPHRASES))
async def test_a_paraphrased_question_finds_its_answer_in_the_top_five(live, shared_files, name):
    question, answer = PARAPHRASES[name]
    assert not words(question) & words(answer)
    lines = (shared_files / name).read_text().splitlines()
    wanted = [n for n, line in enumerate(lines, start=1) if answer in line]
    assert len(wanted) == 1
    async with live.client("alice") as client:
        label = await index(client, shared_files, name)
        found = text_of(
            await client.call_tool("IndexSearch", {"queries": [question], "source": label})
        )
    ranges = [
        (int(match.group(2)), int(match.group(3) or match.group(2)))
        for match in map(HIT.match, found.split("\n"))
        if match and match.group(1) == label
    ]
    assert len(ranges) <= 5
    assert any(first <= wanted[0] <= last for first, last in ranges), found[:500]
