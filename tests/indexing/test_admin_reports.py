"""Admin report pages: the session list, a session's report, label content, the overview."""

import html
import re
from datetime import timedelta
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import timezone

from indexing.engine.store import SessionStore
from indexing.management.commands.demo_data import demo_sessions_create
from indexing.reports.models import IndexedLabel, SessionRecord
from tests.engine_helpers import add_text
from tests.factories import ClientFactory, UpstreamFactory

pytestmark = pytest.mark.django_db
HOSTILE = '<script>alert("x")</script>'


@pytest.fixture
def superuser(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def viewer(client):
    """A staff member who may view session records but is not a superuser."""
    user = User.objects.create_user("viewer", password="pw-viewer-123", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_sessionrecord"))
    client.force_login(user)
    return client


@pytest.fixture
def record() -> SessionRecord:
    now = timezone.now()
    record = SessionRecord.objects.create(
        key="abc123",
        client=ClientFactory(name="alice"),
        client_label="alice",
        protocol_version="2025-11-25",
        client_software="claude-code",
        client_software_version="2.1.4",
        started_at=now - timedelta(minutes=10),
        last_activity_at=now,
        call_count=4,
        error_count=1,
        bytes_from_upstreams=250_000,
        bytes_to_client=12_000,
        calls_by_tool={"files__read_text_file": 2, "IndexSearch": 1, "IndexRead": 1},
        catalog_bytes_before=40_000,
        catalog_bytes_after=9_000,
        catalog_phases=["schemas", "defer"],
        items_activated=2,
        searches=1,
        reads=1,
    )
    IndexedLabel.objects.create(
        session=record,
        label="files__read_text_file:1",
        tool="files__read_text_file",
        run=1,
        original_bytes=240_000,
        delivered_bytes=4_100,
        lines=2_900,
        chunks=41,
        seconds_to_index=0.25,
    )
    return record


@pytest.fixture
def alive(record, live_stores):
    """Make `record` the live session of a running gateway whose label holds hostile text."""
    store = SessionStore()
    add_text(
        store, "files__read_text_file:1", f"line one\n{HOSTILE}\n", tool="files__read_text_file"
    )
    live_stores[record.key] = store
    return SimpleNamespace(end=lambda: live_stores.pop(record.key))


def field(page: str, name: str) -> str:
    match = re.search(rf'data-field="{name}">([^<]*)<', page)
    assert match, name
    return html.unescape(match.group(1)).strip()


def report_url(record: SessionRecord) -> str:
    return reverse("admin:indexing_sessionrecord_report", args=[record.pk])


def label_url(record: SessionRecord) -> str:
    label = record.labels.get()
    return reverse("admin:indexing_sessionrecord_label", args=[record.pk, label.pk])


@pytest.mark.parametrize(
    "url",
    [
        reverse("admin:indexing_sessionrecord_changelist"),
        reverse("admin:indexing_sessionrecord_overview"),
        "/admin/indexing/sessionrecord/1/report/",
        "/admin/indexing/sessionrecord/1/labels/1/",
    ],
)
def test_anonymous_visitors_and_non_staff_users_get_the_login_page(client, url):
    assert client.get(url)["Location"].startswith("/admin/login/")
    client.force_login(User.objects.create_user("pat", password="pw-pat-12345"))
    assert client.get(url)["Location"].startswith("/admin/login/")


def test_the_report_shows_the_recorded_figures_and_labels(superuser, record):
    page = superuser.get(report_url(record)).content.decode()
    for name in ("call_count", "error_count", "bytes_from_upstreams", "bytes_to_client"):
        assert field(page, name) == str(getattr(record, name))
    assert field(page, "responses_indexed") == "1"
    assert field(page, "saved_percent") == "95.2%"
    assert field(page, "tokens_saved") == str((250_000 - 12_000) // 4)
    assert field(page, "catalog_phases") == "schemas, defer"
    assert field(page, "client_software") == "claude-code 2.1.4"
    assert field(page, "duration") == "0:10:00"
    assert "files__read_text_file:1" in page and 'data-field="chunks">41<' in page
    assert page.count('<svg class="chart') == 2
    assert "the indexed content is gone" in page


def test_the_report_lists_guardrail_decisions_by_count_only(superuser, record):
    assert (
        "No guardrail decision in this session."
        in superuser.get(report_url(record)).content.decode()
    )
    record.guardrails = {"masked:github token": 2, "masked:jwt": 1, "denied": 3, "odd": "x"}
    record.save()
    page = superuser.get(report_url(record)).content.decode()
    counts = dict(re.findall(r'data-guardrail="([^"]+)">(\d+)<', page))
    assert counts == {"denied": "3", "masked:github token": "2", "masked:jwt": "1"}


def test_a_staff_member_without_the_view_permission_is_refused(client, record):
    user = User.objects.create_user("staff", password="pw-staff-123", is_staff=True)
    client.force_login(user)
    assert client.get(report_url(record)).status_code == 403


def test_a_missing_session_is_a_404(superuser):
    assert superuser.get("/admin/indexing/sessionrecord/999/report/").status_code == 404


def test_a_record_has_no_edit_form_its_page_is_the_report(superuser, record):
    url = reverse("admin:indexing_sessionrecord_change", args=[record.pk])
    assert superuser.get(url)["Location"] == report_url(record)


def test_superusers_read_live_label_content_as_escaped_text(superuser, record, alive):
    report = superuser.get(report_url(record)).content.decode()
    assert f'href="{label_url(record)}"' in report
    page = superuser.get(label_url(record)).content.decode()
    assert "1: line one" in page
    assert "2: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert HOSTILE not in page
    assert (
        "2: &lt;script&gt;"
        in superuser.get(label_url(record) + "?offset=2&limit=1").content.decode()
    )


def test_label_content_is_gone_once_the_session_ended(superuser, record, alive):
    alive.end()
    page = superuser.get(label_url(record)).content.decode()
    assert "its indexed content is gone" in page and "line one" not in page


def test_label_content_is_for_superusers_only(viewer, record, alive):
    assert viewer.get(report_url(record)).status_code == 200
    assert label_url(record) not in viewer.get(report_url(record)).content.decode()
    assert viewer.get(label_url(record)).status_code == 403


@pytest.mark.parametrize("query", ["offset=abc", "limit=0", "limit=99999", "offset=1-2-3"])
def test_bad_label_page_values_get_field_errors(superuser, record, alive, query):
    response = superuser.get(f"{label_url(record)}?{query}")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'class="errorlist' in page and "line one" not in page


def test_the_overview_shows_charts_tables_and_upstream_health(superuser, record):
    UpstreamFactory(name="files")
    page = superuser.get(reverse("admin:indexing_sessionrecord_overview")).content.decode()
    assert page.count('<svg class="chart') == 3
    assert field(page, "sessions") == "1" and field(page, "calls") == "4"
    assert "files__read_text_file:1" in page
    assert "not started" in page


@pytest.mark.parametrize("query", ["days=0", "days=abc", "days=9999", "client=999"])
def test_bad_overview_values_get_field_errors_not_a_crash(superuser, record, query):
    response = superuser.get(reverse("admin:indexing_sessionrecord_overview") + "?" + query)
    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()


def _listed(staff, query: str) -> set[str]:
    url = reverse("admin:indexing_sessionrecord_changelist") + "?" + query
    page = staff.get(url).content.decode()
    return set(re.findall(r'<td class="field-client_label">([^<]+)</td>', page))


def test_the_session_list_filters_by_client_date_and_upstream_and_searches(superuser, record):
    bob = ClientFactory(name="bob")
    old = timezone.now() - timedelta(days=20)
    SessionRecord.objects.create(
        key="bob1",
        client=bob,
        client_label="bob",
        protocol_version="2026-07-28",
        started_at=old,
        last_activity_at=old,
        calls_by_tool={"github__search_issues": 1},
    )
    UpstreamFactory(name="github")
    UpstreamFactory(name="files")
    assert _listed(superuser, "") == {"alice", "bob"}
    assert _listed(superuser, f"client__id__exact={bob.pk}") == {"bob"}
    assert _listed(superuser, "upstream=files") == {"alice"}
    assert _listed(superuser, "upstream=github") == {"bob"}
    since = quote((timezone.now() - timedelta(days=7)).isoformat())
    assert _listed(superuser, f"started_at__gte={since}") == {"alice"}
    assert _listed(superuser, "q=read_text_file:1") == {"alice"}
    assert _listed(superuser, "q=search_issues") == {"bob"}


def test_the_label_list_filters_by_upstream_and_searches_by_tool(superuser, record):
    UpstreamFactory(name="files")
    url = reverse("admin:indexing_indexedlabel_changelist")
    assert "files__read_text_file:1" in superuser.get(url + "?upstream=files").content.decode()
    assert "files__read_text_file:1" not in superuser.get(url + "?q=github").content.decode()


@pytest.fixture
def ten_thousand_sessions(db):
    demo_sessions_create(sessions=10_000, days=30, seed=1)
    return SessionRecord.objects.order_by("-bytes_from_upstreams").first()


def test_pages_use_a_bounded_number_of_queries_with_ten_thousand_sessions(
    superuser, ten_thousand_sessions, django_assert_max_num_queries
):
    UpstreamFactory(name="files")
    busiest = ten_thousand_sessions
    pages = [
        reverse("admin:indexing_sessionrecord_changelist"),
        reverse("admin:indexing_sessionrecord_changelist") + "?upstream=files&q=alice",
        reverse("admin:indexing_sessionrecord_overview") + "?days=30",
        reverse("admin:indexing_indexedlabel_changelist") + "?q=github",
        report_url(busiest),
    ]
    for url in pages:
        with django_assert_max_num_queries(12):
            assert superuser.get(url).status_code == 200


def test_the_report_says_what_delivered_and_errors_count(superuser, record):
    # The client read back more than the placeholders spared: the saving is negative.
    SessionRecord.objects.filter(pk=record.pk).update(bytes_to_client=260_000)
    page = superuser.get(report_url(record)).content.decode()
    assert field(page, "bytes_saved") == "-10000"
    assert field(page, "saved_percent") == "-4.0%"
    explained = " ".join(re.search(r'id="saved-explained">(.*?)</p>', page, re.S)[1].split())
    assert "every IndexSearch and IndexRead result" in explained
    assert "calls refused by a limit and calls of unknown tools, resources or prompts" in explained
    overview = superuser.get(reverse("admin:indexing_sessionrecord_overview")).content.decode()
    assert "every IndexSearch and IndexRead result" in overview
