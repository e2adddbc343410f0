"""Django settings for LocalRouter, read from the environment (12-factor)."""

from pathlib import Path

from django.utils.csp import CSP

from localrouter import config, oauth_config, otel_config
from localrouter.team_sign_in import config as team_sign_in_config

BASE_DIR = Path(__file__).resolve().parent.parent

# The admin's pages load scripts, styles and images from this server only; inline scripts
# and <style> blocks carry the response's nonce; nothing may frame them.
DEFAULT_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "frame-ancestors": [CSP.NONE],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
}

# A .env file beside manage.py fills in what the environment leaves unset.
if (BASE_DIR / ".env").is_file():
    config.env.read_env(BASE_DIR / ".env", overwrite=False)

try:
    DATA_DIR = config.data_dir(BASE_DIR)
    SECRET_KEY = config.secret_key(DATA_DIR)
    DATABASES = {"default": config.database_config(DATA_DIR)}
    CHANNEL_LAYERS = config.channel_layers()
    REDIS_URL = config.env.str("REDIS_URL", default="")
    DEBUG = config.boolean("DEBUG", default=False)
    ALLOWED_HOSTS = config.listing("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
    # Origins a browser-based MCP client may call /mcp from (DNS-rebinding protection).
    MCP_ALLOWED_ORIGINS = config.listing(
        "LOCALROUTER_ALLOWED_ORIGINS",
        ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    MCP_SESSION_IDLE_TIMEOUT = config.number("LOCALROUTER_SESSION_IDLE_TIMEOUT", 30 * 60, minimum=1)
    # Seconds a new session waits for slow upstreams; later ones join with list_changed.
    UPSTREAM_START_BUDGET = config.number("LOCALROUTER_UPSTREAM_START_BUDGET", 2.0, minimum=0)
    # Seconds between writes of a running session's record (a session's end is written at once).
    SESSION_RECORD_FLUSH_SECONDS = config.number(
        "LOCALROUTER_RECORD_FLUSH_SECONDS", 10, minimum=0.1
    )
    # Seconds a worker keeps the enabled upstream list before reading it again (a save in the
    # same process drops it at once; one in another process is seen after this long).
    UPSTREAM_LIST_CACHE_SECONDS = config.number(
        "LOCALROUTER_UPSTREAM_LIST_CACHE_SECONDS", 5, minimum=0
    )
    # Where `manage.py serve` (and so `make serve`) listens, from the environment or .env.
    SERVE_HOST = config.env.str("HOST", default="127.0.0.1")
    SERVE_PORT = int(config.number("PORT", 8000, minimum=1))
    # The HTTP server `manage.py serve` (and so `make serve`) runs: uvicorn (httptools and
    # uvloop: the most calls a second, docs/deploy.md) or daphne.
    HTTP_SERVER = config.choice("LOCALROUTER_SERVER", "uvicorn", ("daphne", "uvicorn"))
    # On SIGTERM, requests already running get this long to finish; new ones get 503.
    MCP_SHUTDOWN_GRACE_SECONDS = config.number("LOCALROUTER_SHUTDOWN_GRACE_SECONDS", 10, minimum=0)
    # Several workers behind a reverse proxy: this worker's name, the prefix of the session
    # ids it opens (`w1.<hex>`), which the proxy routes on (docs/deploy.md).
    WORKER_ROUTE = config.route_name("LOCALROUTER_WORKER_ROUTE")
    # Several workers (REDIS_URL): a request forwarded to the worker owning its session waits
    # this long for the owner to take it and begin answering, then gets 503 + Retry-After.
    # A live owner begins within the 15 s after which a quiet answer becomes an event
    # stream, unless it is starved: only a wedged owner should reach this.
    FORWARD_TIMEOUT_SECONDS = config.number("LOCALROUTER_FORWARD_TIMEOUT", 300, minimum=1)
    # Workers renew a heartbeat in Redis this often; one silent for ten periods is gone
    # and its sessions unknown (404: their clients open new ones elsewhere).
    FORWARD_HEARTBEAT_SECONDS = config.number("LOCALROUTER_WORKER_HEARTBEAT", 1, minimum=0.1)
    # Who owns which session is kept in Redis under this key prefix; deployments sharing one
    # Redis database each need their own (client ids of two databases would meet).
    OWNERS_KEY_PREFIX = config.env.str(
        "LOCALROUTER_OWNERS_KEY_PREFIX", default="localrouter:owner:"
    )
    MCP_MAX_BODY_BYTES = int(
        config.number("LOCALROUTER_MAX_BODY_BYTES", 8 * 1024 * 1024, minimum=1024)
    )
    # The largest message read from an upstream: a stdio line, a Streamable HTTP event. A
    # stdio upstream that sends more is stopped (its calls get an error naming this setting).
    UPSTREAM_MAX_MESSAGE_BYTES = int(
        config.number("LOCALROUTER_UPSTREAM_MAX_MESSAGE_MIB", 64, minimum=1) * 2**20
    )
    # Indexed text each session's store (each 2026-07-28 client's) holds before evicting.
    INDEX_MAX_BYTES = int(config.number("LOCALROUTER_INDEX_MAX_MIB", 256, minimum=1) * 2**20)
    # Session reports older than this many days are removed by `manage.py prune_sessions`.
    REPORT_RETENTION_DAYS = int(config.number("LOCALROUTER_REPORT_RETENTION_DAYS", 30, minimum=1))
    # Audit trail (gateway/operations/audit/): events older than this many days are removed by
    # `manage.py prune_audit`; with AUDIT_ARGUMENTS, calls' arguments are kept, secrets masked.
    AUDIT_RETENTION_DAYS = int(config.number("LOCALROUTER_AUDIT_RETENTION_DAYS", 90, minimum=1))
    AUDIT_ARGUMENTS = config.boolean("LOCALROUTER_AUDIT_ARGUMENTS", default=False)
    # Pinned tool definitions (docs/guardrails.md): an upstream's tools and instructions are
    # pinned when first seen (false: held until a superuser approves them); a tool that
    # appears later on an upstream already pinned is held (false: admitted and pinned).
    PIN_ON_FIRST_SIGHT = config.boolean("LOCALROUTER_PIN_ON_FIRST_SIGHT", default=True)
    HOLD_NEW_TOOLS = config.boolean("LOCALROUTER_HOLD_NEW_TOOLS", default=True)
    # Behind a reverse proxy that ends TLS: trust its X-Forwarded-Proto, so that requests
    # count as https (CSRF origin checks, Connect snippets) and cookies are sent over TLS only.
    BEHIND_TLS_PROXY = config.boolean("LOCALROUTER_BEHIND_TLS_PROXY", default=False)
    # Seconds browsers remember to use https only (Strict-Transport-Security), sent behind
    # a TLS proxy on https requests; 0 sends none.
    HSTS_SECONDS = int(config.number("LOCALROUTER_HSTS_SECONDS", 365 * 24 * 3600, minimum=0))
    # Reverse proxies whose X-Forwarded-For is believed; none: the connecting address is
    # the client's (localrouter/client_address.py).
    TRUSTED_PROXIES = config.networks("LOCALROUTER_TRUSTED_PROXIES")
    CACHES = config.caches()
    # The address clients and browsers reach the gateway at, e.g. https://mcp.example.com
    # (OAuth: the resource URL, redirect and callback addresses, the Client ID Metadata
    # Document). Unset: taken from each request's Host (localrouter/public_url.py).
    PUBLIC_URL = config.public_url("LOCALROUTER_PUBLIC_URL")
    # Keys that encrypt OAuth grants and client secrets at rest (comma-separated Fernet keys:
    # the first encrypts, all decrypt; unset: one derived from SECRET_KEY). docs/oauth.md.
    ENCRYPTION_KEYS = config.fernet_keys("LOCALROUTER_ENCRYPTION_KEYS")
    # Refreshes of one grant take turns across workers under this Redis key prefix (REDIS_URL).
    GRANT_LOCK_PREFIX = config.env.str(
        "LOCALROUTER_GRANT_LOCK_PREFIX", default="localrouter:grant-refresh:"
    )
    # Seconds a worker keeps an upstream access token it read (never past its refresh time):
    # calls then read no database; another worker's Disconnect is seen within this. 0: none.
    GRANT_TOKEN_CACHE_SECONDS = config.number(
        "LOCALROUTER_GRANT_TOKEN_CACHE_SECONDS", 30, minimum=0
    )
    # Failed admin logins: this many from one address, or for one user name, within the
    # window lock further attempts for the lockout (localrouter/admin_login.py). 0: never.
    LOGIN_FAILURE_LIMIT = int(config.number("LOCALROUTER_LOGIN_FAILURE_LIMIT", 5, minimum=0))
    LOGIN_FAILURE_WINDOW = config.number("LOCALROUTER_LOGIN_FAILURE_WINDOW", 15 * 60, minimum=1)
    LOGIN_LOCKOUT_SECONDS = config.number("LOCALROUTER_LOGIN_LOCKOUT_SECONDS", 15 * 60, minimum=1)
    # Team sign-in through the company's OpenID Connect provider (LOCALROUTER_OIDC_*; None:
    # off), and whether the admin still takes passwords (localrouter/team_sign_in/).
    TEAM_SIGN_IN = team_sign_in_config.team_sign_in()
    PASSWORD_LOGIN = team_sign_in_config.password_login(TEAM_SIGN_IN)
    # Seconds between silent checks of a signed-in member with the provider (0: none).
    OIDC_RENEW_ID_TOKEN_EXPIRY_SECONDS = config.number(
        "LOCALROUTER_OIDC_RECHECK_SECONDS", 15 * 60, minimum=0
    )
    # Invalid bearer tokens on /mcp: this many from one address within the window get it
    # 429 for the lockout, before its tokens are looked at (gateway/http/token_throttle.py).
    TOKEN_FAILURE_LIMIT = int(config.number("LOCALROUTER_TOKEN_FAILURE_LIMIT", 30, minimum=0))
    TOKEN_FAILURE_WINDOW = config.number("LOCALROUTER_TOKEN_FAILURE_WINDOW", 60, minimum=1)
    TOKEN_LOCKOUT_SECONDS = config.number("LOCALROUTER_TOKEN_LOCKOUT_SECONDS", 60, minimum=1)
    # The admin's Content-Security-Policy: enforced, only reported, or off.
    CSP_MODE = config.choice("LOCALROUTER_CSP", "enforce", ("enforce", "report-only", "off"))
    CSP_POLICY = config.csp_policy("LOCALROUTER_CSP_POLICY", DEFAULT_CSP, CSP.NONCE)
    # Hybrid vector search is on by default exactly where its model is installed (SPEC §1).
    EMBEDDING_MODEL_DIR = config.embedding_model_dir(BASE_DIR)
    VECTOR_SEARCH_DEFAULT = config.embedding_backend_ready(EMBEDDING_MODEL_DIR)
    # Catalog vectors kept by content digest: a restart or another worker reads them back.
    CATALOG_VECTORS_DIR = DATA_DIR / "catalog-vectors"
    # Responses up to this size get vectors for hybrid search (minutes of CPU a MiB);
    # larger ones are searched by keywords alone. 0 turns response vectors off.
    RESPONSE_VECTORS_MAX_BYTES = int(
        config.number("LOCALROUTER_RESPONSE_VECTORS_MAX_KIB", 512, minimum=0) * 1024
    )
    # At most this many responses of a worker wait for vectors (the oldest beyond it is
    # searched by keywords alone); a search waits up to this long for vectors due by then.
    RESPONSE_VECTORS_QUEUE = int(config.number("LOCALROUTER_RESPONSE_VECTORS_QUEUE", 16, minimum=1))
    RESPONSE_VECTORS_WAIT_SECONDS = config.number(
        "LOCALROUTER_RESPONSE_VECTORS_WAIT_SECONDS", 1.0, minimum=0
    )
    # Until its vectors are computed, a response has static ones (a table of the model's token
    # vectors, indexing/engine/static_vectors.py: 12 MB per worker, built once per model):
    # a search ranks by keywords fused with them. Off: keywords and candidates below.
    RESPONSE_STATIC_VECTORS = config.boolean("LOCALROUTER_RESPONSE_STATIC_VECTORS", True)
    # A search that cannot wait for its response's vectors (nor has static ones) embeds this
    # many of its best keyword hits at once, within the same wait, and ranks them by meaning
    # too (0: none).
    RESPONSE_VECTORS_CANDIDATES = int(
        config.number("LOCALROUTER_RESPONSE_VECTORS_CANDIDATES", 15, minimum=0)
    )
    # The share of one CPU the embedding thread uses at most (it pauses between steps).
    RESPONSE_VECTORS_CPU_SHARE = config.number(
        "LOCALROUTER_RESPONSE_VECTORS_CPU_SHARE", 1.0, minimum=0.05
    )
    if RESPONSE_VECTORS_CPU_SHARE > 1:
        raise config.ConfigError("LOCALROUTER_RESPONSE_VECTORS_CPU_SHARE: at most 1 (one CPU)")
    # Traces: where spans are exported over OTLP/HTTP, from the standard OTEL_* variables
    # ('' exports nothing; trace context reaches the upstreams either way;
    # gateway/operations/tracing.py).
    TRACES_OTLP_ENDPOINT = otel_config.traces_endpoint()
    # GET /metrics (Prometheus text) answers only `Authorization: Bearer <this>`; unset: no
    # /metrics at all (404). Served workers share their counts
    # (gateway/operations/metrics/multiprocess.py).
    METRICS_TOKEN = config.env.str("LOCALROUTER_METRICS_TOKEN", default="")
    if 0 < len(METRICS_TOKEN) < 16:
        raise config.ConfigError("LOCALROUTER_METRICS_TOKEN: use at least 16 characters")
    # Per-client limits count in Redis under this prefix when REDIS_URL is set (in memory
    # otherwise); deployments sharing one Redis database each need their own
    # (gateway/operations/limits/).
    LIMITS_KEY_PREFIX = config.env.str(
        "LOCALROUTER_LIMITS_KEY_PREFIX", default="localrouter:limits:"
    )
    # OAuth (docs/auth.md): access tokens live this many seconds, refresh tokens this many
    # days; dynamic client registration (RFC 7591) can be turned off; Client ID Metadata
    # Documents on loopback or private addresses are refused unless allowed (tests, labs).
    OAUTH_ACCESS_TOKEN_SECONDS = config.number(
        "LOCALROUTER_OAUTH_ACCESS_TOKEN_SECONDS", 3600, minimum=1
    )
    OAUTH_REFRESH_TOKEN_DAYS = config.number("LOCALROUTER_OAUTH_REFRESH_TOKEN_DAYS", 30, minimum=1)
    OAUTH_DYNAMIC_REGISTRATION = config.boolean("LOCALROUTER_OAUTH_DYNAMIC_REGISTRATION", True)
    # Redirect URI schemes clients may register: add a desktop client's own (cursor, vscode).
    OAUTH_REDIRECT_SCHEMES = config.listing("LOCALROUTER_OAUTH_REDIRECT_SCHEMES", ["http", "https"])
    OAUTH_METADATA_PRIVATE_ADDRESSES = config.boolean(
        "LOCALROUTER_OAUTH_METADATA_PRIVATE_ADDRESSES", False
    )
except config.ConfigError as error:
    config.fail(error)

# Not "daphne": its app imports daphne's server as Django starts, which makes the server's
# event loop before `manage.py serve` can choose uvloop (gateway/serving/daphne_server.py).
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "oauth2_provider",
    "gateway",
    "clients",
    "indexing",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The admin's CSS and JS, served by the same daphne (no separate web server needed).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "localrouter.team_sign_in.recheck.SessionRecheck",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# Passwords are checked only while password login is on; team sign-in's backend signs in
# only through the provider's callback (and answers permission checks as ModelBackend does).
AUTHENTICATION_BACKENDS = [
    *(["django.contrib.auth.backends.ModelBackend"] if PASSWORD_LOGIN else []),
    *(["localrouter.team_sign_in.backend.TeamSignInBackend"] if TEAM_SIGN_IN else []),
]

# mozilla-django-oidc's settings, from TEAM_SIGN_IN. The provider's endpoints come from its
# discovery document at sign-in (localrouter/team_sign_in/discovery.py), not from here.
OIDC_RP_CLIENT_ID = TEAM_SIGN_IN.client_id if TEAM_SIGN_IN else ""
OIDC_RP_CLIENT_SECRET = TEAM_SIGN_IN.client_secret if TEAM_SIGN_IN else ""
OIDC_RP_SCOPES = TEAM_SIGN_IN.scopes if TEAM_SIGN_IN else ""
OIDC_RP_SIGN_ALGO = TEAM_SIGN_IN.signing_algorithm if TEAM_SIGN_IN else "RS256"
OIDC_TOKEN_USE_BASIC_AUTH = bool(TEAM_SIGN_IN and TEAM_SIGN_IN.token_auth_basic)
OIDC_OP_AUTHORIZATION_ENDPOINT = OIDC_OP_TOKEN_ENDPOINT = OIDC_OP_USER_ENDPOINT = ""
OIDC_OP_JWKS_ENDPOINT = "-"  # a placeholder: the library asks for one with RS/ES keys
OIDC_USE_PKCE = True
# The callback address under LOCALROUTER_PUBLIC_URL when it is set, else the request's.
OIDC_AUTH_REQUEST_EXTRA_PARAMS = team_sign_in_config.callback_override(PUBLIC_URL)
OIDC_TIMEOUT = 10
LOGIN_REDIRECT_URL = "/admin/"

ROOT_URLCONF = "localrouter.urls"
# The OAuth consent page runs under the member's admin login.
LOGIN_URL = "/admin/login/"
# django-oauth-toolkit's own models, named because Client links to its Application.
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth2_provider.Grant"
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"
OAUTH2_PROVIDER = oauth_config.oauth_provider_settings(
    public_url=PUBLIC_URL,
    access_token_seconds=OAUTH_ACCESS_TOKEN_SECONDS,
    refresh_token_seconds=OAUTH_REFRESH_TOKEN_DAYS * 24 * 3600,
    dynamic_registration=OAUTH_DYNAMIC_REGISTRATION,
    redirect_schemes=OAUTH_REDIRECT_SCHEMES,
)
ASGI_APPLICATION = "localrouter.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise expects it, even when serving from the apps
WHITENOISE_USE_FINDERS = True  # straight from the installed apps, no collectstatic step
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = {
    "version": 1,
    # Keep daphne's and Django's own loggers working; only add ours.
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "access": {"format": "%(asctime)s %(message)s"},
    },
    # Every URL in a log line is masked (userinfo, secret query values): defence in depth.
    "filters": {
        "mask_urls": {"()": "localrouter.url_masking.MaskUrlsFilter"},
        "mask_access_target": {"()": "localrouter.url_masking.MaskAccessTargetFilter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["mask_urls"],
        },
        # uvicorn's access log: a line per request, on stdout as daphne writes its own.
        "access": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "access",
            "filters": ["mask_access_target"],
        },
    },
    # Libraries' records reach this handler too; daphne keeps its INFO lines.
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "daphne": {"level": "INFO"},
        "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        # They log each request's full URL at INFO; the SDK uses the httpx2/httpcore2 forks.
        **{name: {"level": "WARNING"} for name in ("httpx", "httpcore", "httpx2", "httpcore2")},
        "localrouter": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "gateway": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "clients": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "indexing": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}

if BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = HSTS_SECONDS

SECURE_CSP = CSP_POLICY if CSP_MODE == "enforce" else {}
SECURE_CSP_REPORT_ONLY = CSP_POLICY if CSP_MODE == "report-only" else {}

# Messages stay server-side, never in a cookie. A new client token is no message: it is
# rendered straight into the response that issued it and kept nowhere (clients/admin_token.py).
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"
