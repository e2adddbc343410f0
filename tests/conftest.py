"""Shared test fixtures."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def staff(client, admin_user):
    """Django's test client, logged in as a superuser."""
    client.force_login(admin_user)
    return client
