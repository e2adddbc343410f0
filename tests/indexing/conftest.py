"""Fixtures for the indexing tests."""

from collections.abc import Iterator, Sequence

import pytest

from indexing.engine.store import SessionStore
from indexing.reports.live_state import (
    LiveState,
    UpstreamHealthRow,
    install_live_state,
    live_state,
)


class _LiveStores:
    """Live state whose live sessions are the stores a test sets by record key; upstreams
    as the state it stands in for tells them."""

    def __init__(self, upstreams: LiveState) -> None:
        self.stores: dict[str, SessionStore] = {}
        self._upstreams = upstreams

    def live_store(self, record_key: str) -> SessionStore | None:
        return self.stores.get(record_key)

    def upstream_names(self) -> Sequence[str]:
        return self._upstreams.upstream_names()

    def upstream_health(self) -> Sequence[UpstreamHealthRow]:
        return self._upstreams.upstream_health()


@pytest.fixture
def store() -> Iterator[SessionStore]:
    """A session's store, closed after the test."""
    store = SessionStore()
    yield store
    store.close()


@pytest.fixture
def fresh_process(monkeypatch) -> Iterator[None]:
    """The process as it starts: no model loaded yet, no static table loading. What a test
    loads or fails to load (a folder without a model leaves a process without one for good)
    is undone after it, its background load finished first."""
    from indexing.engine import hybrid, static_vectors

    monkeypatch.setattr(hybrid, "_embedders", {})
    monkeypatch.setattr(hybrid, "_vector_cache", {})
    monkeypatch.setattr(static_vectors, "_loading", None)
    yield
    if static_vectors._loading is not None:
        static_vectors._loading.join(timeout=60)


@pytest.fixture(scope="module")
def model():
    """The process's model, loaded (as a gateway has it once it embedded a catalog)."""
    from django.conf import settings

    from indexing.engine.hybrid import embedder
    from indexing.engine.model_folder import model_folder_ready

    if not model_folder_ready(settings.EMBEDDING_MODEL_DIR):
        pytest.skip("all-MiniLM-L6-v2 model folder not found (run `make embeddings`)")
    return embedder(settings.EMBEDDING_MODEL_DIR)


@pytest.fixture
def live_stores() -> Iterator[dict[str, SessionStore]]:
    """The stores of live sessions the reports see, by record key (empty: none is live)."""
    installed = live_state()
    state = _LiveStores(installed)
    install_live_state(state)
    yield state.stores
    install_live_state(installed)
