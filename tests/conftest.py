"""Shared test fixtures."""

import pytest
from hypothesis import settings

from gateway.upstream_auth import token_cache
from tests.e2e.gateway_db import gateway_databases

# Property tests check behaviour, not speed: hypothesis' per-example deadline (200 ms) is a
# timing assertion that fails on a loaded 2-core machine (timings belong in benchmarks/).
settings.register_profile("localrouter", deadline=None)
settings.load_profile("localrouter")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def staff(client, admin_user):
    """Django's test client, logged in as a superuser."""
    client.force_login(admin_user)
    return client


@pytest.fixture(autouse=True, scope="session")
def _gateway_databases(tmp_path_factory, django_db_blocker):
    """Live gateways' databases, used from the test process (tests/e2e/gateway_db.py)."""
    with gateway_databases(tmp_path_factory.mktemp("gateway-template"), django_db_blocker.unblock):
        yield


@pytest.fixture(autouse=True)
def _no_cached_upstream_tokens():
    """Each test starts with no upstream access token kept in this process: test databases
    reuse row ids, and a token cached for (upstream 1, member 1) belongs to an earlier test."""
    token_cache.forget_all()
