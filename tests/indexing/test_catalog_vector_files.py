"""Catalog vectors kept on disk by content digest (indexing.engine.catalog_vector_files):
computed once, read back by a restarted process without computing them again."""

import logging

import pytest

for _package in ("numpy", "safetensors", "tokenizers"):
    pytest.importorskip(_package, reason=f"{_package} (optional, for embeddings) not installed")

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402

from indexing.engine import catalog_vector_files as files  # noqa: E402
from indexing.engine.model_folder import model_folder_ready  # noqa: E402
from indexing.engine.token_match import EntryTokens  # noqa: E402
from tests.fresh_interpreter import run_fresh  # noqa: E402

# One process: the catalog's vectors with `folder`, its log lines and a ranking printed.
EMBED_CATALOG = """
import logging, sys
from pathlib import Path
logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stdout)
from indexing.engine.embeddings import Embedder
from indexing.engine.hybrid import CatalogVectors
documents = [
    ("mcp/files/tool/files__make_directory", "files__make_directory\\n\\nCreate a folder"),
    ("mcp/files/tool/files__remove_file", "files__remove_file\\n\\nDelete one file"),
    ("mcp/web/tool/web__open_page", "web__open_page\\n\\nOpen a web page in a browser tab"),
]
vectors = CatalogVectors(documents, Embedder.from_path(sys.argv[1]), Path(sys.argv[2]))
print("first:", vectors.rankings(["make a new folder"], None)[0][0])
"""


def _model_folder():
    if not model_folder_ready(settings.EMBEDDING_MODEL_DIR):
        pytest.skip("all-MiniLM-L6-v2 model folder not found (run `make embeddings`)")
    return settings.EMBEDDING_MODEL_DIR


def test_a_restarted_process_reads_the_catalog_vectors_back_instead_of_computing_them(tmp_path):
    model = str(_model_folder())
    first = [line for line in run_fresh(EMBED_CATALOG, model, str(tmp_path)) if "catalog" in line]
    assert any("catalog embeddings started: 3 tool(s)" in line for line in first)
    assert any("catalog embeddings kept on disk: 3 tool(s)" in line for line in first)
    assert len(list(tmp_path.glob("*.npz"))) == 1

    again = run_fresh(EMBED_CATALOG, model, str(tmp_path))  # a restart: nothing in memory
    assert any("catalog embeddings read from disk: 3 of 3 tool(s)" in line for line in again)
    assert not any("catalog embeddings started" in line for line in again)
    assert "first: mcp/files/tool/files__make_directory" in again


def test_another_catalog_or_model_gets_a_file_of_its_own(tmp_path):
    texts = ["a\n\nRead a file", "b\n\nWrite a file"]
    same = files.catalog_file(tmp_path, "model-1", texts)
    assert files.catalog_file(tmp_path, "model-1", list(reversed(texts))) == same  # any order
    assert files.catalog_file(tmp_path, "model-2", texts) != same
    assert files.catalog_file(tmp_path, "model-1", [*texts, "c\n\nMove a file"]) != same


def test_saved_entries_come_back_whole_even_an_entry_of_no_tokens(tmp_path):
    rng = np.random.default_rng(7)
    entries = {
        files.text_key("some tool"): (
            rng.standard_normal(4).astype(np.float32),
            EntryTokens((101, 7), rng.integers(-127, 127, (2, 4), np.int8), np.ones(2, np.float32)),
        ),
        files.text_key(""): (  # no tokens: one blank vector held
            np.zeros(4, np.float32),
            EntryTokens((), np.zeros((1, 4), np.int8), np.ones(1, np.float32)),
        ),
    }
    path = tmp_path / "catalog.npz"
    files.save(path, entries)
    loaded = files.load(path)
    assert loaded is not None and loaded.keys() == entries.keys()
    for key, (vector, tokens) in entries.items():
        np.testing.assert_array_equal(loaded[key][0], vector)
        assert loaded[key][1].ids == tokens.ids
        np.testing.assert_array_equal(loaded[key][1].quantized, tokens.quantized)
        np.testing.assert_array_equal(loaded[key][1].scales, tokens.scales)
    assert not list(tmp_path.glob("*.tmp"))  # written under a temporary name, then renamed


def test_an_unreadable_file_is_logged_and_computed_again(tmp_path, caplog):
    path = tmp_path / "broken.npz"
    path.write_bytes(b"not a numpy archive")
    caplog.set_level(logging.WARNING, logger=files.__name__)
    assert files.load(path) is None
    assert "unreadable, computing them again" in caplog.text
    assert files.load(tmp_path / "absent.npz") is None


def test_only_the_newest_files_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "KEPT_FILES", 2)
    entry = (np.zeros(2, np.float32), EntryTokens((1,), np.ones((1, 2), np.int8), np.ones(1)))
    for n in range(4):
        files.save(tmp_path / f"{n}.npz", {files.text_key(str(n)): entry})
    assert len(list(tmp_path.glob("*.npz"))) == 2
