"""The upstream page shows what the upstream offered when last listed, and which list failed."""

import sys

import pytest
from django.urls import reverse

from gateway.models import Upstream
from tests.e2e.live import SERVERS
from tests.factories import UpstreamFactory

pytestmark = pytest.mark.django_db
MESSY = str(SERVERS / "messy_server.py")


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return client


def messy(name: str, flag: str) -> Upstream:
    return UpstreamFactory(name=name, command=sys.executable, args=[MESSY, flag])


def press_test_connection(staff, upstream: Upstream) -> str:
    url = reverse("admin:gateway_upstream_test", args=[upstream.pk])
    return staff.post(url, follow=True).content.decode()


def test_a_new_upstream_says_it_was_not_listed_yet(staff):
    fresh = UpstreamFactory(name="fresh")
    page = staff.get(reverse("admin:gateway_upstream_change", args=[fresh.pk])).content.decode()
    assert 'id="last-listing"' in page and "Not listed yet" in page


def test_a_test_connection_stores_and_shows_the_counts_and_the_failed_list(staff):
    upstream = messy("noprompts", "--prompts-error")
    page = press_test_connection(staff, upstream)
    assert "Noprompts: prompts/list failed: the prompt store is offline" in page
    assert "(test connection):" in page
    assert "1 tool, 0 prompts, 0 resources, 0 templates" in page
    assert "<code>prompts/list</code> failed: the prompt store is offline" in page
    upstream.refresh_from_db()
    assert upstream.last_listing == {
        "via": "test connection",
        "tools": 1,
        "prompts": 0,
        "resources": 0,
        "templates": 0,
        "failed": {"prompts/list": "the prompt store is offline"},
        "error": None,
    }
    assert upstream.last_listing_at is not None


def test_a_missing_template_list_is_not_a_failure(staff):
    page = press_test_connection(staff, messy("notemplates", "--no-templates"))
    assert "1 tool, 0 prompts, 1 resource, 0 templates" in page
    assert "Every list it declares was read." in page


def test_an_upstream_that_cannot_start_shows_why(staff):
    upstream = UpstreamFactory(
        name="broken", command=sys.executable, args=[str(SERVERS / "fails_to_start.py")]
    )
    page = press_test_connection(staff, upstream)
    assert "could not be started: upstream &#x27;broken&#x27; unavailable" in page
