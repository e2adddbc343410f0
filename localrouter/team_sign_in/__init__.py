"""Team sign-in: members log into the admin through the company's OpenID Connect provider.

mozilla-django-oidc runs the protocol (authorization code with PKCE, state and nonce);
this package configures it (`config.py`), finds the provider's endpoints (`discovery.py`),
maps the provider's groups to staff and superuser (`roles.py`), creates or updates the
member's user at each sign-in (`backend.py`) and serves the two steps of a sign-in and its
refusals (`views.py`).
"""
