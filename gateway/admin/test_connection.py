"""The upstream page's "Test connection": start the upstream once, list it, ping it, stop it.

A separate connection from the gateway's pool, so a test never disturbs live sessions.
The outcome is shown as admin messages: tool names and any list that failed, or the
upstream's error (which never carries env or header values) with the last lines of its
stderr; the counts are stored on the upstream (`listing_record`).
"""

from __future__ import annotations

import logging

import mcp_types as types
from asgiref.sync import async_to_sync
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from gateway.admin.powers import may_run_upstreams
from gateway.catalog.listing_record import record_listing_sync
from gateway.catalog.listings import upstream_probe
from gateway.models import Upstream
from gateway.upstream_config.directory import spec_for
from gateway.upstream_config.grants import bearer_for, spec_for_client
from gateway.upstreams import (
    UpstreamError,
    stderr_mark,
    stderr_tail,
)

logger = logging.getLogger(__name__)
MAX_LISTED_TOOLS = 50
STDERR_LINES_SHOWN = 5


def _tools_message(upstream: Upstream, tools: list[types.Tool]) -> str:
    shown = format_html_join(", ", "<code>{}</code>", ((t.name,) for t in tools[:MAX_LISTED_TOOLS]))
    more = len(tools) - MAX_LISTED_TOOLS
    return format_html(
        "{} answered with {} tool(s): {}{}",
        upstream.name,
        len(tools),
        shown,
        f" and {more} more" if more > 0 else "",
    )


def _failure_message(upstream: Upstream, error: str, mark: int) -> str:
    """The error, with the last stderr lines of this test's process (not of earlier ones)."""
    lines = stderr_tail(upstream.name, since=mark)[-STDERR_LINES_SHOWN:]
    if not lines:
        return f"Could not connect to {upstream.name}: {error}"
    return format_html(
        "Could not connect to {}: {}<br>Last stderr lines:<pre>{}</pre>",
        upstream.name,
        error,
        "\n".join(lines),
    )


def connection_check_view(model_admin, request: HttpRequest, upstream_id: int) -> HttpResponse:
    """POST: test the stored upstream's connection and come back to its page with the outcome."""
    if not may_run_upstreams(request.user):
        raise PermissionDenied
    upstream = get_object_or_404(Upstream, pk=upstream_id)
    # An OAuth upstream is tried with the grant this user's own clients would carry.
    spec = spec_for_client(spec_for(upstream), request.user.pk)
    mark = stderr_mark(upstream.name)
    try:
        listing = async_to_sync(upstream_probe)(spec, bearer_for(spec))
        record_listing_sync(listing, "test connection")
    except UpstreamError as error:
        messages.error(request, _failure_message(upstream, str(error), mark))
    except Exception:  # the admin boundary: show a clean message, keep the details in the log
        logger.exception("testing the connection to upstream %r failed", upstream.name)
        messages.error(request, f"Testing {upstream.name} failed unexpectedly; see the server log.")
    else:
        if listing.error is not None:
            messages.error(request, _failure_message(upstream, listing.error, mark))
        else:
            messages.success(request, _tools_message(upstream, listing.tools))
        if listing.failed:
            messages.warning(request, f"{upstream.name}: {listing.failure_text()}")
    return HttpResponseRedirect(reverse("admin:gateway_upstream_change", args=[upstream.pk]))
