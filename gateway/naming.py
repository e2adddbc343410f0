"""Names the gateway exposes for upstream tools, prompts and resources, and the way back.

Tools and prompts are exposed as `<upstream>__<name>`. An exposed name is at most 64
characters of `[A-Za-z0-9_.-]`. When the plain form is longer, or the upstream's name uses
other characters (spaces, `/`, `:`, non-ASCII...), the exposed name is the plain form with
every other character replaced by `_`, cut to 55 characters, then `_` and 8 hex digits of
SHA-256 over the upstream and the original name. The hash keeps the shortened names
distinct and stable across restarts; `NameMap` resolves the (adversarial) case where two
still collide, in a deterministic order.

Resources keep their URIs. When several upstreams expose the same URI (or URI template),
the first upstream in name order keeps it and every other copy is exposed as
`lr+<upstream>:<original uri>`. Upstream URIs that already start with `lr+` are always
rewritten that way, so a rewritten URI can never clash with an original one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

SEPARATOR = "__"
MAX_NAME_LENGTH = 64
HASH_LENGTH = 8
_DISALLOWED = re.compile(r"[^A-Za-z0-9_.-]")
RESOURCE_PREFIX = "lr+"


def expose_name(upstream: str, name: str, *, salt: int = 0) -> str:
    """The exposed name for `name` of `upstream`, before collision handling."""
    plain = f"{upstream}{SEPARATOR}{name}"
    if salt == 0 and len(plain) <= MAX_NAME_LENGTH and not _DISALLOWED.search(plain):
        return plain
    digest = hashlib.sha256(f"{upstream}\x00{name}\x00{salt}".encode()).hexdigest()[:HASH_LENGTH]
    prefix = _DISALLOWED.sub("_", plain)[: MAX_NAME_LENGTH - HASH_LENGTH - 1]
    return f"{prefix}_{digest}"


@dataclass
class NameMap:
    """Exposed tool (or prompt) names of several upstreams, and the reverse mapping."""

    _by_exposed: dict[str, tuple[str, str]] = field(default_factory=dict)
    _by_original: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def build(cls, entries: Iterable[tuple[str, str]]) -> NameMap:
        """Map `(upstream, name)` pairs; the result does not depend on their order."""
        names = cls()
        pending = sorted(set(entries))
        plain_first = sorted(pending, key=lambda e: expose_name(*e) != f"{e[0]}{SEPARATOR}{e[1]}")
        for upstream, name in plain_first:
            salt = 0
            exposed = expose_name(upstream, name)
            while exposed in names._by_exposed:
                salt += 1
                exposed = expose_name(upstream, name, salt=salt)
            names._by_exposed[exposed] = (upstream, name)
            names._by_original[(upstream, name)] = exposed
        return names

    def __len__(self) -> int:
        return len(self._by_exposed)

    def __contains__(self, exposed: object) -> bool:
        return exposed in self._by_exposed

    def exposed(self, upstream: str, name: str) -> str:
        """The exposed name of `name` from `upstream`.

        Raises:
            KeyError: The pair is not in the map.
        """
        return self._by_original[(upstream, name)]

    def resolve(self, exposed: str) -> tuple[str, str]:
        """`(upstream, original name)` for an exposed name.

        Raises:
            KeyError: No such exposed name.
        """
        return self._by_exposed[exposed]

    def items(self) -> Iterable[tuple[str, tuple[str, str]]]:
        """`(exposed, (upstream, original))` pairs, sorted by exposed name."""
        return sorted(self._by_exposed.items())


@dataclass
class ResourceUriMap:
    """Exposed resource URIs (or URI templates) of several upstreams, and the way back."""

    _by_exposed: dict[str, tuple[str, str]] = field(default_factory=dict)
    _by_original: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def build(cls, uris: Mapping[str, Iterable[str]]) -> ResourceUriMap:
        """Map `{upstream: [uri, ...]}`; the first upstream in name order keeps a shared URI."""
        uri_map = cls()
        for upstream in sorted(uris):
            for uri in sorted(set(uris[upstream])):
                taken = uri in uri_map._by_exposed or uri.startswith(RESOURCE_PREFIX)
                exposed = f"{RESOURCE_PREFIX}{upstream}:{uri}" if taken else uri
                uri_map._by_exposed[exposed] = (upstream, uri)
                uri_map._by_original[(upstream, uri)] = exposed
        return uri_map

    def __len__(self) -> int:
        return len(self._by_exposed)

    def exposed(self, upstream: str, uri: str) -> str:
        """The URI under which the gateway exposes `uri` of `upstream`.

        Raises:
            KeyError: The pair is not in the map.
        """
        return self._by_original[(upstream, uri)]

    def resolve(self, exposed: str) -> tuple[str, str]:
        """`(upstream, original uri)` for an exposed URI.

        Raises:
            KeyError: No such exposed URI.
        """
        return self._by_exposed[exposed]
