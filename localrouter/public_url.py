"""Absolute addresses of this gateway, as clients and browsers reach it."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def absolute_url(path: str, request: HttpRequest | None = None) -> str:
    """`path` (starting with '/') under LOCALROUTER_PUBLIC_URL, or under the request's own
    scheme and Host when that setting is unset. Without either there is no address to give."""
    if settings.PUBLIC_URL:
        return settings.PUBLIC_URL + path
    if request is None:
        raise ValueError("LOCALROUTER_PUBLIC_URL is unset and there is no request to take it from")
    return request.build_absolute_uri(path)
