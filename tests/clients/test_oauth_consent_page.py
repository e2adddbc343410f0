"""The consent page: behind the admin login, and its Content-Security-Policy lets the
approval's redirect reach the client (form-action) while keeping the page's nonce."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from oauth2_provider.models import Application

pytestmark = pytest.mark.django_db
CALLBACK = "http://127.0.0.1:9/cb"


@pytest.fixture
def request_params() -> dict[str, str]:
    application = Application.objects.create(
        name="Assistant",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=CALLBACK,
    )
    return {
        "client_id": application.client_id,
        "response_type": "code",
        "redirect_uri": CALLBACK,
        "code_challenge": "a" * 43,
        "code_challenge_method": "S256",
    }


def test_the_consent_page_asks_for_the_admin_login_first(client, request_params):
    answer = client.get("/oauth/authorize/", request_params)
    assert answer.status_code == 302
    assert answer.headers["location"].startswith("/admin/login/?next=/oauth/authorize/")


def test_the_consent_page_lets_the_answer_redirect_to_the_client_only(client, request_params):
    client.force_login(User.objects.create_user("mia", is_staff=True))
    answer = client.get("/oauth/authorize/", request_params)
    policy = answer.headers["Content-Security-Policy"]
    nonces = set(re.findall(r'nonce="([^"]+)"', answer.content.decode()))
    assert answer.status_code == 200 and len(nonces) == 1
    assert f"style-src 'self' 'nonce-{nonces.pop()}'" in policy
    assert "form-action 'self' http://127.0.0.1:9;" in policy + ";"
    assert "Allow <strong>Assistant</strong> to use this gateway as mia?" in answer.text
