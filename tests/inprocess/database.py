"""Rows the in-process tests need: clients with their tokens, upstreams they use."""

from __future__ import annotations

import sys

from asgiref.sync import sync_to_async

from clients.services import client_create
from gateway.models import Upstream
from tests.fixtures.upstreams import SERVERS_DIR


def echo_upstream(name: str = "echo", *args: str) -> dict:
    """The fields of an upstream running the SDK-written echo fixture server over stdio."""
    return {
        "name": name,
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(SERVERS_DIR / "echo_server.py"), *args],
    }


def echo_http_upstream(url: str, name: str = "echo") -> dict:
    """The fields of an upstream reaching the echo fixture server over Streamable HTTP."""
    return {"name": name, "transport": "http", "url": url}


@sync_to_async
def add_client(name: str, upstreams: list[str] | None = None, **overrides) -> str:
    """A client allowed these upstreams (None: all); returns its token."""
    chosen = None if upstreams is None else Upstream.objects.by_names(upstreams)
    _, token = client_create(name=name, upstreams=chosen, overrides=overrides)
    return token


@sync_to_async
def add_upstream(**fields) -> None:
    Upstream.objects.create(**fields)
