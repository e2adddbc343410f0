"""Client ID Metadata Documents are fetched within limits: https, public addresses unless a
setting allows private ones, a size cap; and dynamic registration can be turned off."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from oauth2_provider.cimd import CIMDError
from oauth2_provider.settings import oauth2_settings

from clients.oauth.metadata_document import MetadataDocumentFetcher
from tests.fixtures.tls_documents import TlsDocuments, tls_documents

DOCUMENT = "/clients/tool.json"


@pytest.fixture
def served(tmp_path, monkeypatch) -> Iterator[TlsDocuments]:
    """Documents over https on loopback, trusted through SSL_CERT_FILE."""
    with tls_documents(tmp_path) as documents:
        monkeypatch.setenv("SSL_CERT_FILE", str(documents.ca_file))
        documents.documents[DOCUMENT] = json.dumps(
            {"client_id": documents.base + DOCUMENT, "redirect_uris": ["http://127.0.0.1:9/cb"]}
        ).encode()
        documents.endless.add("/clients/huge.json")
        yield documents


def test_a_loopback_document_is_refused_unless_allowed(served, settings):
    settings.OAUTH_METADATA_PRIVATE_ADDRESSES = False
    with pytest.raises(CIMDError, match="non-public address"):
        MetadataDocumentFetcher().fetch(served.base + DOCUMENT)
    assert served.requests == []  # refused before connecting


def test_a_loopback_document_is_fetched_where_allowed(served, settings):
    settings.OAUTH_METADATA_PRIVATE_ADDRESSES = True
    document, max_age = MetadataDocumentFetcher().fetch(served.base + DOCUMENT)
    assert document["client_id"] == served.base + DOCUMENT
    assert max_age == oauth2_settings.CIMD_METADATA_MIN_AGE_SECONDS


def test_a_50_mb_document_is_refused_after_the_size_limit(served, settings):
    settings.OAUTH_METADATA_PRIVATE_ADDRESSES = True
    with pytest.raises(CIMDError, match="maximum allowed size"):
        MetadataDocumentFetcher().fetch(served.base + "/clients/huge.json")


@pytest.mark.parametrize(
    "client_id",
    ["http://127.0.0.1:9/clients/tool.json", "https://127.0.0.1:9/", "https://u:p@127.0.0.1:9/x"],
)
def test_a_document_address_that_is_not_plain_https_is_refused(client_id, settings):
    settings.OAUTH_METADATA_PRIVATE_ADDRESSES = True
    with pytest.raises(CIMDError):
        MetadataDocumentFetcher().fetch(client_id)


@pytest.mark.django_db
def test_dynamic_registration_turned_off_answers_404_and_is_not_advertised(client, settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "DCR_ENABLED": False}
    registration = {"redirect_uris": ["http://127.0.0.1:9/cb"], "client_name": "x"}
    answer = client.post("/oauth/register/", registration, content_type="application/json")
    assert answer.status_code == 404
    assert (
        "registration_endpoint" not in client.get("/.well-known/oauth-authorization-server").json()
    )


@pytest.mark.django_db
def test_dynamic_registration_is_open_by_default(client):
    registration = {"redirect_uris": ["http://127.0.0.1:9/cb"], "client_name": "x"}
    answer = client.post("/oauth/register/", registration, content_type="application/json")
    assert answer.status_code == 201 and answer.json()["client_id"]
