"""Every metric the gateway exports, defined once, and the functions its code calls.

Labels take bounded values only: upstream names and their tools' names (both come from the
configuration), call kinds, outcomes and reasons from fixed vocabularies. Never a client's
name, a token, an argument, a URI or content: a name a client made up (an unknown tool) is
counted under `tool=""`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

if TYPE_CHECKING:
    from indexing.api.catalog_plan import CatalogPlan

disable_created_metrics()  # no `_created` series: multiprocess mode has none either

# Tool calls take from milliseconds (a local tool) to minutes (a slow upstream).
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
UPSTREAM_STATES = ("connected", "starting", "failing", "not_started", "disabled")
REFUSAL_REASONS = {401: "auth", 403: "forbidden", 421: "forbidden", 429: "throttled"}
"""HTTP refusals of /mcp by status; other 4xx are `bad_request`, refused calls `limit`."""

TOOL_CALLS = Counter(
    "localrouter_tool_calls",
    "Tool calls by upstream, tool (as the upstream names it) and outcome (ok, error, refused, "
    'unknown); IndexSearch/IndexRead under upstream="", unknown tools under tool="".',
    ["upstream", "tool", "outcome"],
)
CALLS = Counter(
    "localrouter_calls",
    "Client calls by kind (tool, index, resource, prompt, completion), upstream and outcome.",
    ["kind", "upstream", "outcome"],
)
CALL_DURATION = Histogram(
    "localrouter_call_duration_seconds",
    "How long client calls took in the gateway, upstream included, by kind and upstream.",
    ["kind", "upstream"],
    buckets=DURATION_BUCKETS,
)
UPSTREAM_RECEIVED = Counter(
    "localrouter_upstream_received_bytes",
    "UTF-8 bytes of tool results received from upstreams.",
    ["upstream"],
)
CLIENT_DELIVERED = Counter(
    "localrouter_client_delivered_bytes",
    "UTF-8 bytes of tool results delivered to clients (placeholders for indexed ones; "
    'IndexSearch/IndexRead results under upstream="").',
    ["upstream"],
)
RESPONSES_INDEXED = Counter(
    "localrouter_responses_indexed", "Tool results indexed and replaced by a placeholder."
)
CATALOG_SAVED = Counter(
    "localrouter_catalog_saved_bytes",
    "Catalog bytes sessions were spared by catalog indexing, each time a session got a catalog.",
)
SECRETS_MASKED = Counter(
    "localrouter_secrets_masked",
    "Credentials masked in tool results before the client or the index saw them, by kind "
    "(github token, private key, jwt...: the scanner's fixed list).",
    ["kind"],
)
INDEX_SEARCHES = Counter("localrouter_index_searches", "IndexSearch calls served.")
INDEX_READS = Counter("localrouter_index_reads", "IndexRead calls served.")
LIVE_SESSIONS = Gauge(
    "localrouter_live_sessions",
    "Gateway sessions alive now, in every worker.",
    multiprocess_mode="livesum",
)
UPSTREAM_STATE = Gauge(
    "localrouter_upstream_state",
    "Workers in which the upstream is in this state (one worker: 1 for its state, 0 else).",
    ["upstream", "state"],
    multiprocess_mode="livesum",
)
REFUSALS = Counter(
    "localrouter_refusals",
    "Requests and calls refused, by reason: auth, forbidden (Host, Origin), throttled, "
    "bad_request (malformed, oversized), limit (a client's limits).",
    ["reason"],
)

FORWARDED = Counter(
    "localrouter_forwarded_requests",
    "Requests that reached a worker other than their session's owner, by outcome: relayed "
    "(the owner answered), busy (503: its inbox stayed full or it did not answer in time), "
    "gone (its worker had stopped).",
    ["outcome"],
)

_upstreams_shown: set[str] = set()


def count_http_refusal(status: int) -> None:
    """An /mcp request refused with this HTTP status before the SDK saw it."""
    REFUSALS.labels(REFUSAL_REASONS.get(status, "bad_request")).inc()


def count_forwarded(outcome: str) -> None:
    """A request relayed to the worker owning its session: relayed, busy or gone."""
    FORWARDED.labels(outcome).inc()


def count_index_use(*, search: bool) -> None:
    """An IndexSearch (or IndexRead) served."""
    (INDEX_SEARCHES if search else INDEX_READS).inc()


def count_indexed_response() -> None:
    RESPONSES_INDEXED.inc()


def count_masked(counts: dict[str, int]) -> None:
    """Credentials of these kinds masked in one result."""
    for kind, count in counts.items():
        SECRETS_MASKED.labels(kind).inc(count)


def count_catalog_planned(plan: CatalogPlan | None) -> None:
    """A session got a catalog as `plan` shapes it (None: the whole catalog)."""
    if plan is not None and plan.bytes_before > plan.bytes_after:
        CATALOG_SAVED.inc(plan.bytes_before - plan.bytes_after)


def session_started() -> None:
    LIVE_SESSIONS.inc()


def session_ended() -> None:
    LIVE_SESSIONS.dec()


def show_upstream_state(upstream: str, state: str | None) -> None:
    """This worker's state of `upstream` (None: gone from its configuration)."""
    _upstreams_shown.add(upstream)
    for each in UPSTREAM_STATES:
        UPSTREAM_STATE.labels(upstream, each).set(1 if each == state else 0)


def show_upstream_states(states: dict[str, str]) -> None:
    """Every configured upstream's state in this worker; those removed since read 0."""
    for gone in _upstreams_shown - states.keys():
        show_upstream_state(gone, None)
        _upstreams_shown.discard(gone)
    for upstream, state in states.items():
        show_upstream_state(upstream, state)
