"""Every relative link in README.md and docs/*.md resolves to a file in the repository, and
every file path a page names (in backticks, from the repository's root) exists."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
OUTSIDE = re.compile(r"\.\./shared/|/work/")
# `gateway/http/host.py`, `indexing/api/`: a path from the repository's root, to a file with a
# suffix or to a folder (`host.py` or `limits/` alone is read against the package the text
# is about).
NAMED_PATH = re.compile(r"`([a-z_][\w.-]*(?:/[\w.-]+)+(?:\.[a-z]+|/))`")


def relative_links(page: Path) -> list[str]:
    links = LINK.findall(page.read_text(encoding="utf-8"))
    return [link for link in links if not re.match(r"[a-z][a-z0-9+.-]*:|#", link)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_relative_links_point_at_files_in_the_repository(page):
    for link in relative_links(page):
        target = (page.parent / link.split("#", 1)[0]).resolve()
        assert target.is_relative_to(ROOT), f"{page.name}: {link} leaves the repository"
        assert target.exists(), f"{page.name}: {link} does not exist"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_no_page_mentions_files_outside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert not OUTSIDE.search(text), f"{page.name} refers outside the repository"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_file_paths_named_in_a_page_exist(page):
    text = page.read_text(encoding="utf-8")
    missing = [path for path in NAMED_PATH.findall(text) if not (ROOT / path).exists()]
    assert not missing, f"{page.name} names paths that do not exist: {missing}"
