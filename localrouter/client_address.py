"""Which address a request comes from, for throttling: the connecting address, unless that is
a trusted reverse proxy (`LOCALROUTER_TRUSTED_PROXIES`).

Anyone may send `X-Forwarded-For`, and a proxy appends the address it saw to whatever the
client sent. So the header is read only when a trusted proxy connected, from the right: the
first address that is not itself a trusted proxy is the client's. A client cannot choose its
address by writing the header, and without trusted proxies the header is ignored.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Sequence

from django.conf import settings
from django.http import HttpRequest

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
IPV6_BUCKET_PREFIX = 64


@functools.lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(item, strict=False) for item in trusted)


def parse_address(text: str) -> IPAddress | None:
    """An address as a peer or a proxy writes it (`203.0.113.7`, `[2001:db8::1]:443`,
    `203.0.113.7:5000`), IPv4-mapped IPv6 as IPv4; None when it is not an address."""
    text = text.strip()
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else text
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def client_address(
    peer: str | None, forwarded_for: str | None, trusted: Sequence[str]
) -> str | None:
    """The client's address, from the connecting `peer`, the `X-Forwarded-For` value and the
    trusted proxies' networks; None when the peer is unknown (not a socket)."""
    if not trusted or not peer:
        return peer or None  # the usual case, unparsed: this runs on every request
    address = parse_address(peer)
    if address is None:
        return peer
    networks = _networks(tuple(trusted))
    hops = (forwarded_for or "").split(",")
    while any(address in network for network in networks) and hops:
        hop = parse_address(hops.pop())
        if hop is None:
            break  # a malformed entry: the last trusted proxy is all that is known
        address = hop
    return str(address)


def request_address(request: HttpRequest) -> str | None:
    """The client address of a Django request."""
    meta = request.META
    return client_address(
        meta.get("REMOTE_ADDR"), meta.get("HTTP_X_FORWARDED_FOR"), settings.TRUSTED_PROXIES
    )


def scope_address(scope: dict) -> str | None:
    """The client address of an ASGI HTTP scope."""
    peer = scope.get("client")
    if not peer:
        return None
    forwarded = ",".join(
        value.decode("latin-1")
        for name, value in scope.get("headers", ())
        if name.lower() == b"x-forwarded-for"
    )
    return client_address(peer[0], forwarded, settings.TRUSTED_PROXIES)


def address_bucket(address: str) -> str:
    """What failures are counted against: the address, or an IPv6 address's /64 (one host
    commonly holds a whole /64, and could otherwise try from a new address each time)."""
    if ":" not in address:
        return address  # IPv4, as peers and proxies write it
    parsed = parse_address(address)
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{parsed}/{IPV6_BUCKET_PREFIX}", strict=False))
    return str(parsed) if parsed else address
