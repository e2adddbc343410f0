"""Exposed names for tools/prompts and resource URIs, and the reverse mapping."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.catalog.naming import (
    MAX_NAME_LENGTH,
    ExposedMap,
    expose_name,
)

EXPOSED = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def test_short_names_are_upstream_double_underscore_name():
    assert expose_name("github", "create_issue") == "github__create_issue"


def test_long_names_are_cut_to_64_characters_with_a_hash():
    exposed = expose_name("github", "x" * 100)
    assert len(exposed) == MAX_NAME_LENGTH
    assert exposed.startswith("github__xxx")
    assert re.fullmatch(r".*_[0-9a-f]{8}", exposed)
    assert expose_name("github", "x" * 100) == exposed  # deterministic


def test_characters_outside_the_allowed_set_are_replaced_and_hashed():
    exposed = expose_name("fs", "read file/now")
    assert exposed.startswith("fs__read_file_now_")
    assert EXPOSED.fullmatch(exposed)
    assert exposed != expose_name("fs", "read_file_now")


def test_the_name_map_resolves_exposed_names_back():
    names = ExposedMap.build_names([("fs", "read"), ("gh", "read"), ("gh", "y" * 80)])
    assert names.resolve("fs__read") == ("fs", "read")
    assert names.resolve(names.exposed("gh", "y" * 80)) == ("gh", "y" * 80)
    with pytest.raises(KeyError):
        names.resolve("nope__read")


def test_a_plain_name_wins_over_a_hashed_name_that_happens_to_match():
    long_name = "z" * 80
    squatter = expose_name("a", long_name)[len("a__") :]
    names = ExposedMap.build_names([("a", long_name), ("a", squatter)])
    assert names.resolve(f"a__{squatter}") == ("a", squatter)
    assert names.resolve(names.exposed("a", long_name)) == ("a", long_name)


upstream_names = st.from_regex(
    r"[A-Za-z0-9](?:[A-Za-z0-9.-]|_(?!_)){0,38}[A-Za-z0-9]", fullmatch=True
)
tool_names = st.text(min_size=1, max_size=120)


@given(st.lists(st.tuples(upstream_names, tool_names), max_size=30))
def test_exposed_names_are_unique_bounded_and_reversible(entries):
    names = ExposedMap.build_names(entries)
    assert len(names) == len(set(entries))
    for exposed, original in names.items():
        assert EXPOSED.fullmatch(exposed)
        assert names.resolve(exposed) == original
        assert names.exposed(*original) == exposed


@given(st.lists(st.tuples(upstream_names, tool_names), max_size=15))
def test_the_name_map_does_not_depend_on_input_order(entries):
    forward = ExposedMap.build_names(entries)
    assert list(forward.items()) == list(ExposedMap.build_names(reversed(entries)).items())


def test_the_first_upstream_by_name_keeps_a_shared_uri():
    uris = ExposedMap.build_uris({"zeta": ["file:///a", "file:///z"], "alpha": ["file:///a"]})
    assert uris.exposed("alpha", "file:///a") == "file:///a"
    assert uris.exposed("zeta", "file:///a") == "lr+zeta:file:///a"
    assert uris.exposed("zeta", "file:///z") == "file:///z"
    assert uris.resolve("lr+zeta:file:///a") == ("zeta", "file:///a")


def test_upstream_uris_in_the_reserved_scheme_are_always_rewritten():
    uris = ExposedMap.build_uris({"a": ["lr+b:x"], "b": ["x"]})
    assert uris.exposed("a", "lr+b:x") == "lr+a:lr+b:x"
    assert uris.exposed("b", "x") == "x"


@given(
    st.dictionaries(
        upstream_names, st.lists(st.text(min_size=1, max_size=30), max_size=8), max_size=6
    )
)
def test_exposed_uris_are_unique_and_reversible(uris_by_upstream):
    uris = ExposedMap.build_uris(uris_by_upstream)
    pairs = {(u, uri) for u, listed in uris_by_upstream.items() for uri in listed}
    assert len(uris) == len(pairs)
    for upstream, uri in pairs:
        assert uris.resolve(uris.exposed(upstream, uri)) == (upstream, uri)
