"""Names the gateway exposes for upstream tools, prompts and resources, and the way back.

Tools and prompts are exposed as `<upstream>__<name>`. An exposed name is at most 64
characters of `[A-Za-z0-9_.-]`. When the plain form is longer, or the upstream's name uses
other characters (spaces, `/`, `:`, non-ASCII...), the exposed name is the plain form with
every other character replaced by `_`, cut to 55 characters, then `_` and 8 hex digits of
SHA-256 over the upstream and the original name. The hash keeps the shortened names
distinct and stable across restarts; `ExposedMap.build_names` resolves the (adversarial)
case where two still collide, in a deterministic order.

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

from localrouter.tool_names import TOOL_NAME_SEPARATOR

MAX_NAME_LENGTH = 64
HASH_LENGTH = 8
_DISALLOWED = re.compile(r"[^A-Za-z0-9_.-]")
RESOURCE_PREFIX = "lr+"


def expose_name(upstream: str, name: str, *, salt: int = 0) -> str:
    """The exposed name for `name` of `upstream`, before collision handling."""
    plain = plain_name(upstream, name)
    if salt == 0 and len(plain) <= MAX_NAME_LENGTH and not _DISALLOWED.search(plain):
        return plain
    digest = hashlib.sha256(f"{upstream}\x00{name}\x00{salt}".encode()).hexdigest()[:HASH_LENGTH]
    prefix = _DISALLOWED.sub("_", plain)[: MAX_NAME_LENGTH - HASH_LENGTH - 1]
    return f"{prefix}_{digest}"


def plain_name(upstream: str, name: str) -> str:
    """`<upstream>__<name>`, before shortening or hashing."""
    return f"{upstream}{TOOL_NAME_SEPARATOR}{name}"


@dataclass
class ExposedMap:
    """Exposed names (or URIs) of several upstreams' items, and the way back.

    Built for tool and prompt names by `build_names`, for resource URIs and URI templates
    by `build_uris`.
    """

    _by_exposed: dict[str, tuple[str, str]] = field(default_factory=dict)
    _by_original: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def build_names(cls, entries: Iterable[tuple[str, str]]) -> ExposedMap:
        """Map `(upstream, name)` pairs; the result does not depend on their order."""
        names = cls()
        pending = sorted(set(entries))
        plain_first = sorted(pending, key=lambda e: expose_name(*e) != plain_name(*e))
        for upstream, name in plain_first:
            salt = 0
            exposed = expose_name(upstream, name)
            while exposed in names:
                salt += 1
                exposed = expose_name(upstream, name, salt=salt)
            names._add(exposed, upstream, name)
        return names

    @classmethod
    def build_uris(cls, uris: Mapping[str, Iterable[str]]) -> ExposedMap:
        """Map `{upstream: [uri, ...]}`; the first upstream in name order keeps a shared URI."""
        uri_map = cls()
        for upstream in sorted(uris):
            for uri in sorted(set(uris[upstream])):
                taken = uri in uri_map or uri.startswith(RESOURCE_PREFIX)
                exposed = f"{RESOURCE_PREFIX}{upstream}:{uri}" if taken else uri
                uri_map._add(exposed, upstream, uri)
        return uri_map

    def _add(self, exposed: str, upstream: str, original: str) -> None:
        self._by_exposed[exposed] = (upstream, original)
        self._by_original[(upstream, original)] = exposed

    def __len__(self) -> int:
        return len(self._by_exposed)

    def __contains__(self, exposed: object) -> bool:
        return exposed in self._by_exposed

    def exposed(self, upstream: str, original: str) -> str:
        """The exposed name (or URI) of `original` from `upstream`.

        Raises:
            KeyError: The pair is not in the map.
        """
        return self._by_original[(upstream, original)]

    def resolve(self, exposed: str) -> tuple[str, str]:
        """`(upstream, original name or URI)` for an exposed one.

        Raises:
            KeyError: Nothing is exposed under this name.
        """
        return self._by_exposed[exposed]

    def items(self) -> Iterable[tuple[str, tuple[str, str]]]:
        """`(exposed, (upstream, original))` pairs, sorted by exposed name."""
        return sorted(self._by_exposed.items())
