"""The client's catalog preview: what is listed, what deferred, and why."""

from datetime import timedelta

import mcp_types as types
import pytest
from django.urls import reverse
from django.utils import timezone

from gateway import runtime
from gateway.catalog.upstream_listing import UpstreamListing
from gateway.upstreams import UpstreamSpec
from indexing.reports.models import SessionRecord
from tests.factories import ClientFactory, UpstreamFactory

pytestmark = pytest.mark.django_db
SERVERS = {"big": 12, "small": 2}


def tool(name: str) -> types.Tool:
    return types.Tool(
        name=name,
        description=f"{name}: " + "does a careful and well documented thing. " * 8,
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
    )


@pytest.fixture
def gateway(monkeypatch):
    gateway = runtime.Gateway()
    for name, count in SERVERS.items():
        UpstreamFactory(name=name)
        spec = UpstreamSpec(name=name, transport="stdio", command="x")
        gateway.listings._listings[name] = UpstreamListing(
            spec=spec, tools=[tool(f"t{n}") for n in range(count)]
        )
    monkeypatch.setattr(runtime, "_gateway", gateway)
    return gateway


def preview_page(staff, client) -> str:
    url = reverse("admin:gateway_catalog_preview", args=[client.pk])
    return staff.get(url).content.decode()


def test_the_preview_lists_used_tools_and_says_why_others_are_deferred(staff, gateway):
    erin = ClientFactory(name="erin", catalog_threshold=3_000)
    now = timezone.now()
    SessionRecord.objects.create(
        key="k1",
        client=erin,
        client_label="erin",
        protocol_version="2025-11-25",
        started_at=now - timedelta(minutes=5),
        last_activity_at=now,
        calls_by_tool={"big__t7": 3},
    )
    page = preview_page(staff, erin)
    assert '<tr class="listed"><td><code>big__t7</code>' in page
    assert "used recently (score 3)" in page
    assert '<tr class="deferred"><td><code>big__t2</code>' in page
    assert "IndexSearch finds and activates it" in page
    assert '<tr class="listed"><td><code>small__t0</code>' in page
    assert "of 14 tools listed" in page


def test_without_a_running_gateway_the_preview_says_nothing_was_read(staff, monkeypatch):
    monkeypatch.setattr(runtime, "_gateway", None)
    UpstreamFactory(name="files")
    page = preview_page(staff, ClientFactory(name="erin"))
    assert "Not started in this worker yet (not in the preview): files." in page


def test_the_client_page_links_to_its_preview(staff):
    erin = ClientFactory(name="erin")
    page = staff.get(reverse("admin:clients_client_change", args=[erin.pk])).content.decode()
    assert reverse("admin:gateway_catalog_preview", args=[erin.pk]) in page
