"""The one page that shows a client's new token: the response to the POST that made it.

The token is rendered straight into that response and kept nowhere else: not in the
session, not in a message waiting for the next page, not in a browser or proxy cache.
"""

from __future__ import annotations

from django.contrib.admin import ModelAdmin
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from clients.models import Client


def token_page(
    model_admin: ModelAdmin, request: HttpRequest, client: Client, token: str, verb: str
) -> TemplateResponse:
    """The token with ready-to-paste Connect snippets, and links back to the admin."""
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Token for {client.name}",
        "opts": Client._meta,
        "client": client,
        "token": token,
        "verb": verb,
    }
    response = TemplateResponse(request, "admin/clients/client/token.html", context)
    add_never_cache_headers(response)
    return response
