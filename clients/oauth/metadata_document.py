"""Fetching Client ID Metadata Documents (a client_id that is an https URL).

django-oauth-toolkit's fetcher is used as it is: https only, every resolved address public,
one connection to the address checked, no redirects, a time and a size limit. Only where
LOCALROUTER_OAUTH_METADATA_PRIVATE_ADDRESSES allows it (a lab, the tests) are loopback and
private addresses fetched too, with the same limits but without the address check.
"""

from __future__ import annotations

import json
import ssl
from urllib.parse import urlsplit

import urllib3
from django.conf import settings
from oauth2_provider.cimd import CIMDError, SafeMetadataFetcher
from oauth2_provider.settings import oauth2_settings

JSON_TYPES = ("application/json",)


def _check_url(client_id: str) -> None:
    parts = urlsplit(client_id)
    if parts.scheme != "https" or not parts.hostname:
        raise CIMDError("client_id URL must be https with a host")
    if parts.username or parts.password or parts.fragment or parts.path in ("", "/"):
        raise CIMDError("client_id URL must have a path and no userinfo or fragment")


def _read_json(response: urllib3.BaseHTTPResponse) -> dict:
    if response.status != 200:
        raise CIMDError(f"client_id document returned HTTP {response.status}")
    media_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if media_type not in JSON_TYPES and not media_type.endswith("+json"):
        raise CIMDError("client_id document is not JSON")
    limit = oauth2_settings.CIMD_MAX_DOCUMENT_SIZE
    body = response.read(limit + 1)
    if len(body) > limit:
        raise CIMDError("client_id document exceeds the maximum allowed size")
    try:
        data = json.loads(body)
    except ValueError as error:
        raise CIMDError("client_id document is not valid JSON") from error
    if not isinstance(data, dict):
        raise CIMDError("client_id document must be a JSON object")
    return data


class MetadataDocumentFetcher(SafeMetadataFetcher):
    """The toolkit's SSRF-hardened fetcher, or (where allowed) one that reaches any address."""

    def fetch(self, client_id: str) -> tuple[dict, int]:
        """Raises: CIMDError when the document cannot be used (the client is then unknown)."""
        if not settings.OAUTH_METADATA_PRIVATE_ADDRESSES:
            return super().fetch(client_id)
        _check_url(client_id)
        seconds = oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        pool = urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=seconds, read=seconds, total=seconds),
            retries=False,
            ssl_context=ssl.create_default_context(),
        )
        try:
            response = pool.request(
                "GET",
                client_id,
                headers={"Accept": "application/json"},
                redirect=False,
                preload_content=False,
            )
            try:
                return _read_json(response), int(oauth2_settings.CIMD_METADATA_MIN_AGE_SECONDS)
            finally:
                response.release_conn()
        except urllib3.exceptions.HTTPError as error:
            raise CIMDError(f"could not fetch client_id document: {error}") from error
        finally:
            pool.clear()
