"""Context-management settings resolve client -> global -> built-in default, per field."""

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from clients.context_settings import (
    BUILT_IN_DEFAULT,
    CLIENT_OVERRIDE,
    CLIENT_THEN_GLOBAL,
    GLOBAL_OVERRIDE,
    SETTINGS,
    check_distinct_tool_names,
    parse_setting,
    resolve_settings,
    validate_threshold,
    validate_tool_name,
    vector_search_default,
)
from clients.models import Client, GlobalSettings
from localrouter import config
from tests.factories import ClientFactory


class Overrides:
    def __init__(self, **values):
        self.__dict__.update(values)


def values_for(spec):
    if spec.kind is bool:
        return st.none() | st.booleans()
    if spec.kind is int:
        return st.none() | st.integers(1024, 64 * 1024 * 1024)
    return st.none() | st.from_regex(r"\A[A-Z][a-z]{2,10}\Z")


overrides = st.fixed_dictionaries({spec.name: values_for(spec) for spec in SETTINGS})


@given(client=overrides, team=overrides)
def test_each_field_resolves_to_the_first_level_that_sets_it(client, team):
    effective = resolve_settings(Overrides(**client), Overrides(**team))
    for spec in SETTINGS:
        both = client[spec.name] is not None and team[spec.name] is not None
        if both and spec.layered:  # the tool policy: the client's rules, then the team's
            expected = (f"{client[spec.name]}\n{team[spec.name]}", CLIENT_THEN_GLOBAL)
        elif client[spec.name] is not None:
            expected = (client[spec.name], CLIENT_OVERRIDE)
        elif team[spec.name] is not None:
            expected = (team[spec.name], GLOBAL_OVERRIDE)
        else:
            expected = (spec.built_in(), BUILT_IN_DEFAULT)
        assert (effective[spec.name].value, effective[spec.name].source) == expected
        assert getattr(effective, spec.name) == expected[0]


def test_built_in_defaults_match_the_spec_table():
    effective = resolve_settings(None, None)
    assert effective.indexing_enabled is True
    assert effective.response_threshold == 16_384
    assert effective.catalog_indexing_enabled is True
    assert effective.catalog_threshold == 16_384
    assert effective.search_tool_name == "IndexSearch"
    assert effective.read_tool_name == "IndexRead"
    assert effective.vector_search is vector_search_default()
    assert effective.mask_secrets is True
    assert str(effective["response_threshold"]) == "16384 (built-in default)"
    assert str(effective["indexing_enabled"]) == "on (built-in default)"


@pytest.mark.django_db
def test_stored_client_and_global_overrides_resolve_field_by_field():
    team = GlobalSettings.load()
    team.response_threshold = 32_768
    team.search_tool_name = "FindIt"
    team.save()
    client = ClientFactory(response_threshold=4096, indexing_enabled=False)
    effective = resolve_settings(client, GlobalSettings.load())
    assert str(effective["response_threshold"]) == "4096 (client override)"
    assert str(effective["indexing_enabled"]) == "off (client override)"
    assert str(effective["search_tool_name"]) == "FindIt (global override)"
    assert str(effective["catalog_threshold"]) == "16384 (built-in default)"


@pytest.mark.parametrize("value", [1023, 0, 64 * 1024 * 1024 + 1])
def test_thresholds_outside_one_kib_to_64_mib_are_rejected(value):
    with pytest.raises(ValidationError, match="between 1024"):
        validate_threshold(value)


@pytest.mark.parametrize("value", [1024, 16_384, 64 * 1024 * 1024])
def test_thresholds_inside_the_range_are_accepted(value):
    validate_threshold(value)


@pytest.mark.parametrize("name", ["", "1Search", "Index Search", "Index.Search", "x" * 65, "a__b"])
def test_bad_tool_names_are_rejected(name):
    with pytest.raises(ValidationError):
        validate_tool_name(name)


@pytest.mark.parametrize("name", ["IndexSearch", "search-docs", "S", "a" * 64])
def test_good_tool_names_are_accepted(name):
    validate_tool_name(name)


def test_search_and_read_tools_may_not_share_a_name():
    with pytest.raises(ValidationError, match="both be named"):
        check_distinct_tool_names(resolve_settings(Overrides(read_tool_name="IndexSearch"), None))


@pytest.mark.django_db
def test_a_client_override_colliding_with_an_inherited_name_is_rejected():
    client = ClientFactory.build(search_tool_name="IndexRead")
    with pytest.raises(ValidationError) as caught:
        client.full_clean(exclude=["token_hash", "token_prefix"])
    assert "read_tool_name" in caught.value.message_dict


@pytest.mark.django_db
def test_a_global_name_that_would_collide_with_a_client_override_is_rejected():
    ClientFactory(name="alice", search_tool_name="Lookup")
    team = GlobalSettings.load()
    team.read_tool_name = "Lookup"
    with pytest.raises(ValidationError, match="alice"):
        team.full_clean()


@pytest.mark.django_db
def test_a_blank_tool_name_means_inherit_not_an_empty_name():
    team = GlobalSettings.load()
    team.search_tool_name = ""
    team.full_clean()
    assert team.search_tool_name is None


@pytest.mark.parametrize(
    ("field", "raw", "expected"),
    [
        ("indexing_enabled", "off", False),
        ("indexing_enabled", "TRUE", True),
        ("response_threshold", "32768", 32768),
        ("search_tool_name", "Find", "Find"),
        ("catalog_threshold", "inherit", None),
    ],
)
def test_command_line_values_parse_to_settings(field, raw, expected):
    assert parse_setting(field, raw) == expected


@pytest.mark.parametrize(
    ("field", "raw", "message"),
    [
        ("colour", "red", "unknown setting 'colour'"),
        ("indexing_enabled", "maybe", "expected on/off"),
        ("response_threshold", "big", "whole number"),
        ("response_threshold", "12", "between 1024"),
        ("read_tool_name", "has space", "must start with a letter"),
    ],
)
def test_bad_command_line_values_get_a_clear_error(field, raw, message):
    with pytest.raises(ValidationError, match=message):
        parse_setting(field, raw)


def test_every_setting_is_a_nullable_field_on_both_models():
    for spec in SETTINGS:
        assert Client._meta.get_field(spec.name).null
        assert GlobalSettings._meta.get_field(spec.name).null


def test_vector_search_is_on_by_default_exactly_where_the_embedding_model_is_installed(
    monkeypatch, tmp_path, settings
):
    monkeypatch.setenv("LOCALROUTER_EMBEDDING_MODEL", str(tmp_path))  # an empty folder
    assert config.embedding_model_dir(Path("/elsewhere")) == tmp_path
    settings.VECTOR_SEARCH_DEFAULT = config.embedding_backend_ready(tmp_path)
    assert resolve_settings(None, None).vector_search is False
    (tmp_path / "model.safetensors").write_bytes(b"")
    (tmp_path / "tokenizer.json").write_text("{}")
    settings.VECTOR_SEARCH_DEFAULT = config.embedding_backend_ready(tmp_path)
    assert resolve_settings(None, None).vector_search is True
    assert str(resolve_settings(None, None)["vector_search"]) == "on (built-in default)"
