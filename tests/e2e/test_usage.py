"""Usage through daphne: the live sessions page and `Client.last_seen_at`."""

import re

import anyio
import httpx2
import pytest

from clients.models import Client
from tests.e2e.live import (
    LiveGateway,
    create_superuser,
    start_gateway,
    stdio_upstream,
    stop_gateway,
)

pytestmark = pytest.mark.anyio
PASSWORD = "pw-usage-admin-1"


@pytest.fixture(scope="module")
def usage(tmp_path_factory):
    gateway = start_gateway(
        tmp_path_factory.mktemp("usage"),
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": "erin"}],
    )
    try:
        create_superuser(gateway, PASSWORD)
        yield gateway
    finally:
        stop_gateway(gateway)


async def admin_client(live: LiveGateway) -> httpx2.AsyncClient:
    """An HTTP client logged in to the admin as the superuser."""
    base = live.url.removesuffix("/mcp")
    client = httpx2.AsyncClient(base_url=base, timeout=30)
    page = await client.get("/admin/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    done = await client.post(
        "/admin/login/?next=/admin/",
        data={"username": "admin", "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert done.status_code == 302, done.text[:500]
    return client


def seen(live: LiveGateway) -> bool:
    return live.orm(lambda: Client.objects.get(name="erin").last_seen_at is not None)


async def test_the_live_sessions_page_shows_a_session_and_the_upstream_it_waits_on(usage):
    assert not seen(usage)
    admin = await admin_client(usage)
    async with usage.client("erin") as client, anyio.create_task_group() as tg:
        await client.call_tool("echo__echo", {"text": "one"})
        tg.start_soon(client.call_tool, "echo__sleep", {"seconds": 30})
        with anyio.fail_after(15):
            while True:
                page = (await admin.get("/admin/gateway/upstream/live-sessions/")).text
                if '<span class="in-flight">echo</span>' in page:
                    break
                await anyio.sleep(0.1)
        assert "<td>erin</td>" in page and '<td class="num">2</td>' in page
        assert "2025-11-25" in page
        tg.cancel_scope.cancel()
    with anyio.fail_after(30):  # the recorder writes every 0.3 s (live.py)
        while not await anyio.to_thread.run_sync(seen, usage):
            await anyio.sleep(0.5)
    await admin.aclose()


async def test_the_live_sessions_page_needs_a_staff_login(usage):
    async with httpx2.AsyncClient(base_url=usage.url.removesuffix("/mcp")) as anonymous:
        response = await anonymous.get("/admin/gateway/upstream/live-sessions/")
    assert response.status_code == 302
    assert response.headers["location"].startswith("/admin/login/")
