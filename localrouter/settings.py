"""Django settings for LocalRouter, read from the environment (12-factor)."""

from pathlib import Path

from django.utils.csp import CSP

from localrouter import config, otel_config

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
    # The HTTP server `manage.py serve` (and so `make serve`) runs: daphne or uvicorn.
    HTTP_SERVER = config.choice("LOCALROUTER_SERVER", "daphne", ("daphne", "uvicorn"))
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
    # Failed admin logins: this many from one address, or for one user name, within the
    # window lock further attempts for the lockout (localrouter/admin_login.py). 0: never.
    LOGIN_FAILURE_LIMIT = int(config.number("LOCALROUTER_LOGIN_FAILURE_LIMIT", 5, minimum=0))
    LOGIN_FAILURE_WINDOW = config.number("LOCALROUTER_LOGIN_FAILURE_WINDOW", 15 * 60, minimum=1)
    LOGIN_LOCKOUT_SECONDS = config.number("LOCALROUTER_LOGIN_LOCKOUT_SECONDS", 15 * 60, minimum=1)
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
    # Responses up to this size get vectors for hybrid search (minutes of CPU a MiB);
    # larger ones are searched by keywords alone. 0 turns response vectors off.
    RESPONSE_VECTORS_MAX_BYTES = int(
        config.number("LOCALROUTER_RESPONSE_VECTORS_MAX_KIB", 512, minimum=0) * 1024
    )
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
except config.ConfigError as error:
    config.fail(error)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
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
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "localrouter.urls"
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
    },
    # Every URL in a log line is masked (userinfo, secret query values): defence in depth.
    "filters": {"mask_urls": {"()": "localrouter.url_masking.MaskUrlsFilter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["mask_urls"],
        },
    },
    # Libraries' records reach this handler too; daphne keeps its INFO lines.
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "daphne": {"level": "INFO"},
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
