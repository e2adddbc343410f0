"""`UpstreamSpec`: everything needed to reach one upstream MCP server, free of Django."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from localrouter.url_masking import mask_url

Transport = Literal["stdio", "http", "sse"]
GrantMode = Literal["member", "shared", "machine"]

START_TIMEOUT_FLOOR = 30.0
MAX_MESSAGE_SETTING = "LOCALROUTER_UPSTREAM_MAX_MESSAGE_MIB"
"""The setting that caps one message from an upstream (`max_message_bytes`)."""
DEFAULT_MAX_MESSAGE_BYTES = 64 * 2**20
MIN_SECRET_LENGTH = 4
"""Shorter env or header values are not redacted from messages: they would mangle the text."""


MEMBER_ROUTE = "#member-"


def caller_route(upstream: str, member: int | None) -> str:
    """The name a call waits under for what its upstream connection asks back: the
    upstream's, or for a connection carrying a member's grant, the upstream's and the
    member's ('#' never occurs in an upstream name)."""
    return upstream if member is None else f"{upstream}{MEMBER_ROUTE}{member}"


def split_caller_route(route: str) -> tuple[str, int | None]:
    """The upstream and member of a `caller_route`."""
    upstream, _, member = route.partition(MEMBER_ROUTE)
    return upstream, int(member) if member else None


@dataclass(frozen=True)
class GrantRef:
    """Which OAuth grant an HTTP upstream's connection carries (see `bearer.py`).

    `member` says whose grant a per-member connection carries. It is not part of the
    value (equal refs may name different members): a spec stays the same upstream for
    listings and changes, and the pool keeps one connection per member apart by its key
    (`UpstreamPool.get`)."""

    upstream_id: int
    mode: GrantMode
    member: int | None = field(default=None, compare=False)

    @property
    def holder(self) -> int | None:
        """The member whose grant the connection carries; None for the shared/machine one."""
        return self.member if self.mode == "member" else None


@dataclass(frozen=True)
class UpstreamSpec:
    """How to start or reach one upstream; the Django `Upstream` model converts to this."""

    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, hash=False)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict, hash=False)
    timeout: float = 60.0
    start_timeout: float | None = None
    unset: tuple[str, ...] = ()
    """Placeholder variables the gateway's environment lacks: starting fails naming them."""
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    """The largest message read from the upstream (a stdio line, an HTTP event)."""
    grant: GrantRef | None = None
    """The OAuth grant its requests carry (HTTP upstreams only); None: static headers only."""

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("an upstream needs a name")
        if self.transport == "stdio" and not self.command:
            raise ValueError(f"upstream {self.name!r}: the stdio transport needs a command")
        if self.transport in ("http", "sse") and not self.url:
            raise ValueError(f"upstream {self.name!r}: the {self.transport} transport needs a url")
        if self.transport not in ("stdio", "http", "sse"):
            raise ValueError(f"upstream {self.name!r}: unknown transport {self.transport!r}")
        if self.timeout <= 0:
            raise ValueError(f"upstream {self.name!r}: timeout must be positive")
        if self.max_message_bytes <= 0:
            raise ValueError(f"upstream {self.name!r}: max_message_bytes must be positive")
        if self.grant is not None and self.transport == "stdio":
            raise ValueError(f"upstream {self.name!r}: a stdio upstream carries no OAuth grant")
        # Callers may hand in lists; a frozen spec keeps a tuple.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "unset", tuple(self.unset))

    @property
    def key(self) -> tuple[str, int | None]:
        """What tells its pooled connections apart: the name, and whose grant it carries."""
        return (self.name, self.grant.holder if self.grant is not None else None)

    @property
    def caller_route(self) -> str:
        """What a call to its connection waits under for what the upstream asks back."""
        return caller_route(*self.key)

    @property
    def start_limit(self) -> float:
        """How long starting may take: `start_timeout`, else the call timeout but at least
        30 s (a cold `npx` or a busy machine can take longer than a call is allowed to)."""
        if self.start_timeout is not None:
            return self.start_timeout
        return max(self.timeout, START_TIMEOUT_FLOOR)

    def secret_values(self) -> tuple[str, ...]:
        """Env and header values long enough to redact, longest first."""
        values = {
            v for v in (*self.env.values(), *self.headers.values()) if len(v) >= MIN_SECRET_LENGTH
        }
        return tuple(sorted(values, key=len, reverse=True))

    def __repr__(self) -> str:
        parts = [f"name={self.name!r}", f"transport={self.transport!r}"]
        if self.command is not None:
            parts += [f"command={self.command!r}", f"args={self.args!r}"]
        if self.cwd is not None:
            parts.append(f"cwd={self.cwd!r}")
        if self.url is not None:
            parts.append(f"url={mask_url(self.url)!r}")
        if self.env:
            parts.append(f"env_keys={sorted(self.env)!r}")
        if self.headers:
            parts.append(f"header_keys={sorted(self.headers)!r}")
        if self.grant is not None:
            parts.append(f"grant={self.grant.mode!r}")
        parts.append(f"timeout={self.timeout!r}")
        return f"UpstreamSpec({', '.join(parts)})"

    __str__ = __repr__
