"""One LocalRouter on loopback for the end-to-end tests, with real upstream servers."""

import gzip
import sys
from pathlib import Path

import django.db.models.query as django_query
import pytest

from tests.e2e.live import NODE_BIN, start_gateway, stdio_upstream, stop_gateway
from tests.fixtures.http_server import run_http_server

UPSTREAM_TIMEOUT = 4.0
RETRIEVAL_DOCS = Path(__file__).resolve().parents[2] / "benchmarks" / "retrieval_docs"
# Real documents from this machine's packages (Debian's, and the pinned venv and npm ones).
REAL_DOCUMENTS = {
    "query.py": Path(django_query.__file__),
    "bash.1": Path("/usr/share/man/man1/bash.1.gz"),
    "coreutils.changelog": Path("/usr/share/doc/coreutils/changelog.Debian.gz"),
    "package-lock.json": NODE_BIN.parent / ".package-lock.json",
    "react-icons.min.js": NODE_BIN.parent
    / "@radix-ui/react-icons/dist/react-icons.cjs.production.min.js",
    # Two documents of the retrieval benchmark (copies of Debian's zlib.h and npm's express).
    "zlib.h": RETRIEVAL_DOCS / "zlib-h.h",
    "response.js": RETRIEVAL_DOCS / "express-response-js.js",
}


@pytest.fixture(scope="session")
def echo_http():
    with run_http_server() as server:
        yield server


@pytest.fixture(scope="session")
def shared_files(tmp_path_factory):
    """A folder the filesystem upstream serves, holding a large real file."""
    folder = tmp_path_factory.mktemp("shared")
    for name, source in REAL_DOCUMENTS.items():
        opener = gzip.open if source.suffix == ".gz" else open
        with opener(source, "rb") as original:
            (folder / name).write_bytes(original.read())
    return folder


@pytest.fixture(scope="session")
def live(tmp_path_factory, echo_http, shared_files):
    upstreams = [
        {
            "name": "files",
            "transport": "stdio",
            "command": str(NODE_BIN / "mcp-server-filesystem"),
            "args": [str(shared_files)],
        },
        {
            "name": "everything",
            "transport": "stdio",
            "command": str(NODE_BIN / "mcp-server-everything"),
            "args": ["stdio"],
        },
        {
            "name": "time",
            "transport": "stdio",
            "command": str(Path(sys.executable).parent / "mcp-server-time"),
        },
        {"name": "echohttp", "transport": "http", "url": echo_http.url},
        stdio_upstream("faulty", "echo_server.py", timeout=UPSTREAM_TIMEOUT),
        stdio_upstream("broken", "fails_to_start.py"),
    ]
    clients = [
        # These see the full catalog; catalog deferral has its own clients and tests.
        {"name": "alice", "set": {"catalog_indexing_enabled": False}},
        {"name": "bob", "upstreams": ["time"]},
        {"name": "dave", "set": {"indexing_enabled": False}},
        {
            "name": "carol",
            "set": {"tool_policy": "echohttp__add* deny", "catalog_indexing_enabled": False},
        },
        {"name": "frank"},
        # Hybrid search over responses on and off, whatever the built-in default here.
        {"name": "grace", "set": {"catalog_indexing_enabled": False, "vector_search": True}},
        {"name": "heidi", "set": {"catalog_indexing_enabled": False, "vector_search": False}},
        {"name": "revoked", "set": {"is_active": False}},
    ]
    gateway = start_gateway(tmp_path_factory.mktemp("gateway"), upstreams, clients)
    try:
        yield gateway
    finally:
        stop_gateway(gateway)
