"""The client address used for throttling: the connecting address, or, from a trusted proxy,
the right-most X-Forwarded-For address that is not a trusted proxy."""

import pytest

from localrouter.client_address import address_bucket, client_address

PROXIES = ["127.0.0.1", "10.0.0.0/8"]


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "trusted", "expected"),
    [
        # No trusted proxies: the header is anyone's to write, so it is ignored.
        ("203.0.113.7", "198.51.100.1", [], "203.0.113.7"),
        ("127.0.0.1", "198.51.100.1", [], "127.0.0.1"),
        # A peer that is not a trusted proxy: the same.
        ("203.0.113.7", "198.51.100.1", PROXIES, "203.0.113.7"),
        # A trusted proxy: the address it appended.
        ("127.0.0.1", "198.51.100.1", PROXIES, "198.51.100.1"),
        # What the client wrote before it does not count; trusted hops are skipped.
        ("127.0.0.1", "1.2.3.4, 198.51.100.1", PROXIES, "198.51.100.1"),
        ("127.0.0.1", "1.2.3.4, 198.51.100.1, 10.1.2.3", PROXIES, "198.51.100.1"),
        # Several headers read as one list; ports and brackets are dropped.
        ("127.0.0.1", "1.2.3.4,198.51.100.1:5000", PROXIES, "198.51.100.1"),
        ("127.0.0.1", "[2001:db8::7]:443", PROXIES, "2001:db8::7"),
        # No header, or a malformed entry: the last trusted proxy is all that is known.
        ("127.0.0.1", None, PROXIES, "127.0.0.1"),
        ("127.0.0.1", "1.2.3.4, not-an-address, 10.0.0.5", PROXIES, "10.0.0.5"),
        # Every hop a trusted proxy: the left-most.
        ("127.0.0.1", "10.0.0.2, 10.0.0.3", PROXIES, "10.0.0.2"),
        # IPv4-mapped IPv6 is IPv4.
        ("::ffff:127.0.0.1", "198.51.100.1", PROXIES, "198.51.100.1"),
        # No socket peer at all (a forwarded exchange).
        (None, "198.51.100.1", PROXIES, None),
    ],
)
def test_the_client_address(peer, forwarded_for, trusted, expected):
    assert client_address(peer, forwarded_for, trusted) == expected


@pytest.mark.parametrize(
    ("address", "bucket"),
    [
        ("198.51.100.1", "198.51.100.1"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("::ffff:198.51.100.1", "198.51.100.1"),
    ],
)
def test_ipv6_addresses_are_counted_by_their_64(address, bucket):
    assert address_bucket(address) == bucket
