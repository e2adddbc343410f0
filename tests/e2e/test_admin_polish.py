"""The admin looks finished: branding, breadcrumbs, readable help and choices, a
transport-aware upstream form, bulk actions, a session list and charts that fit.

Debian's chromium through Playwright against daphne on loopback, as test_admin_browser.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from clients.models import Client
from clients.services import client_create
from tests.e2e import test_admin_browser as browser_tests
from tests.e2e.live import ECHO, LiveGateway, create_superuser, start_gateway, stop_gateway
from tests.e2e.test_admin_browser import PASSWORD, admin_url, log_in, screenshot

# The browser and page fixtures and the skip without chromium are test_admin_browser's.
browser = browser_tests.browser
page = browser_tests.page
pytestmark = browser_tests.pytestmark


@pytest.fixture(scope="module")
def gateway(tmp_path_factory) -> Iterator[LiveGateway]:
    upstreams = [
        {"name": name, "transport": "stdio", "command": sys.executable, "args": [ECHO]}
        for name in ("alpha", "beta", "gamma")
    ]
    live = start_gateway(tmp_path_factory.mktemp("polish-gateway"), upstreams, [])
    try:
        create_superuser(live, PASSWORD)
        live.orm(lambda: call_command("demo_data", sessions=120, stdout=io.StringIO()))
        yield live
    finally:
        stop_gateway(live)


def breadcrumbs_background(page: Page) -> str:
    crumbs = page.locator("ol.breadcrumbs")
    expect(crumbs).to_be_visible()
    return crumbs.evaluate("element => getComputedStyle(element).backgroundColor")


def test_the_admin_is_branded_localrouter(page: Page, gateway: LiveGateway, tmp_path):
    log_in(page, gateway)
    expect(page.locator("#site-name")).to_contain_text("LocalRouter")
    expect(page).to_have_title("Gateway administration | LocalRouter admin")
    assert "Django" not in page.locator("#header").inner_text()
    screenshot(page, "admin-home.png", tmp_path)


def polish_client_id() -> int:
    """A client for the pages that belong to one (created on first need)."""
    client = Client.objects.filter(name="polish").first()
    return (client or client_create(name="polish", upstreams=None)[0]).pk


@pytest.mark.parametrize(
    "path",
    [
        "gateway/upstream/import/",
        "indexing/sessionrecord/overview/",
        "gateway/upstream/live-sessions/",
        "CATALOG",
        "REPORT",
    ],
)
def test_custom_pages_have_the_same_breadcrumbs_as_stock_ones(page: Page, gateway, path):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "gateway/upstream/"))
    stock = breadcrumbs_background(page)
    if path == "REPORT":
        page.goto(admin_url(gateway, "indexing/sessionrecord/"))
        page.locator("#result_list tbody tr a").first.click()
    elif path == "CATALOG":
        client_id = gateway.orm(polish_client_id)
        page.goto(admin_url(gateway, f"gateway/upstream/catalog-preview/{client_id}/"))
    else:
        page.goto(admin_url(gateway, path))
    assert breadcrumbs_background(page) == stock
    expect(page.locator("ol.breadcrumbs li").first).to_have_text("Home")


def test_help_texts_show_tool_name_patterns_and_inherit_selects_read_inherit_on_off(
    page: Page, gateway: LiveGateway
):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "clients/client/add/"))
    expect(page.locator("#id_tool_policy_helptext")).to_contain_text("'github__*'")
    options = page.locator("#id_indexing_enabled option").all_inner_texts()
    assert options == ["Inherit", "On", "Off"]
    page.goto(admin_url(gateway, "clients/globalsettings/"))
    assert page.locator("#id_vector_search option").all_inner_texts() == ["Inherit", "On", "Off"]
    page.goto(admin_url(gateway, "gateway/upstream/add/"))
    expect(page.locator("#id_name_helptext")).to_contain_text("'<name>__<tool>'")


def test_the_upstream_form_shows_the_chosen_transports_fields_and_args_as_a_list(
    page: Page, gateway: LiveGateway, tmp_path
):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "gateway/upstream/add/"))
    stdio, http = page.locator("fieldset.transport-stdio"), page.locator("fieldset.transport-http")
    expect(stdio).to_be_visible()
    expect(http).to_be_hidden()
    page.select_option("#id_transport", "http")
    expect(stdio).to_be_hidden()
    expect(http).to_be_visible()
    page.select_option("#id_transport", "stdio")
    page.fill("#id_name", "delta")
    page.fill("#id_command", sys.executable)
    boxes = page.locator("#id_args input")
    boxes.nth(0).fill(ECHO)
    page.click("#id_args .string-list-add")
    boxes.nth(1).fill("--flag with spaces")
    screenshot(page, "upstream-form.png", tmp_path)
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    assert [boxes.nth(i).input_value() for i in range(boxes.count())] == [
        ECHO,
        "--flag with spaces",
        "",
    ]


def test_test_connection_says_it_is_testing_while_it_runs(page: Page, gateway: LiveGateway):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "gateway/upstream/?q=gamma"))
    page.locator("#result_list").get_by_role("link", name="gamma").click()
    button = page.locator("#test-connection")
    expect(button).to_have_text("Test connection")
    # The test itself is not run: the page's own handler comes first, then this one stops it.
    page.evaluate(
        "document.getElementById('test-connection-form')"
        ".addEventListener('submit', (event) => event.preventDefault())"
    )
    button.click()
    expect(button).to_be_disabled()
    expect(button).to_have_text("Testing… (starting the upstream)")


def test_bulk_actions_disable_and_enable_upstreams(page: Page, gateway: LiveGateway):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "gateway/upstream/"))
    for name in ("alpha", "beta"):
        page.locator("#result_list tr", has_text=name).locator("input.action-select").check()
    page.select_option("select[name=action]", "disable_upstreams")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("2 upstream(s) disabled: alpha, beta")
    page.goto(admin_url(gateway, "gateway/upstream/?enabled__exact=0"))
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    page.locator("#action-toggle").check()
    page.select_option("select[name=action]", "enable_upstreams")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("2 upstream(s) enabled")


@pytest.mark.parametrize("width", [1400, 1024])
def test_the_session_list_fits_the_window(page: Page, gateway: LiveGateway, width, tmp_path):
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, gateway)
    page.goto(admin_url(gateway, "indexing/sessionrecord/"))
    # The page never scrolls sideways; at 1400 px every column is in view.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if width == 1400:
        screenshot(page, "sessions.png", tmp_path)
        table = page.locator("#changelist .results")
        visible = table.evaluate("results => results.scrollWidth <= results.clientWidth")
        assert visible, "the session list scrolls sideways at 1400 px"
        expect(page.locator("#result_list thead th").last).to_contain_text("Saved")


def test_chart_labels_are_readable_and_inside_the_chart(page: Page, gateway: LiveGateway, tmp_path):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "indexing/sessionrecord/overview/"))
    charts = page.locator("svg.chart")
    assert charts.count() >= 3
    for index in range(charts.count()):
        chart = charts.nth(index)
        frame = chart.bounding_box()
        scale = chart.evaluate(
            "svg => svg.getBoundingClientRect().width / svg.viewBox.baseVal.width"
        )
        for text in chart.locator("text").all():
            size = scale * text.evaluate("t => parseFloat(getComputedStyle(t).fontSize)")
            label = text.text_content()
            assert size >= 11.5, f"chart {index}: {label!r} is drawn {size:.1f}px high"
            box = text.bounding_box()
            assert box["x"] >= frame["x"] - 1, f"chart {index}: {label!r} cut on the left"
            right = frame["x"] + frame["width"] + 1
            assert box["x"] + box["width"] <= right, f"chart {index}: {label!r} cut on the right"
    screenshot(page, "overview.png", tmp_path)
