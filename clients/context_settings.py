"""Client settings (context management and limits): built-in defaults, per-field resolution.

Each setting resolves as client override -> global override -> built-in default;
an override left NULL inherits, so a better built-in default reaches everyone
who never changed it. Limits are in `clients.limit_settings`; 0 means unlimited.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError

from clients.limit_settings import (
    BYTES_PER_DAY,
    CALLS_PER_MINUTE,
    CONCURRENT_CALLS,
    LIMIT_VALIDATORS,
    UNLIMITED,
    shown_limit,
    shown_tool_limits,
    validate_tool_limits,
)
from clients.tool_policy import layered_policy, shown_tool_policy, validate_tool_policy
from localrouter.tool_names import TOOL_NAME_SEPARATOR

KIB = 1024
MIN_THRESHOLD = 1 * KIB
MAX_THRESHOLD = 64 * KIB * KIB
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")

CLIENT_OVERRIDE = "client override"
GLOBAL_OVERRIDE = "global override"
CLIENT_THEN_GLOBAL = "client override, then global override"
BUILT_IN_DEFAULT = "built-in default"


CONTEXT = "context"
LIMITS = "limits"
TOOL_LIMITS = "tool_limits"
GUARDRAILS = "guardrails"
TOOL_POLICY = "tool_policy"


@dataclass(frozen=True)
class SettingSpec:
    """One client setting: its field name, label, kind, built-in default and group.

    A callable default is asked when settings are resolved (what this machine can do).
    `check` validates a value (raising ValidationError); `shown` says how a value reads
    in the admin when plain text would mislead (0 is 'unlimited', not 'off').
    """

    name: str
    label: str
    kind: type
    default: Any
    check: Callable[[Any], None] | None = None
    group: str = CONTEXT
    shown: Callable[[Any], str] | None = None
    layered: Callable[[Any, Any], Any] | None = None

    def built_in(self) -> Any:
        return self.default() if callable(self.default) else self.default


def vector_search_default() -> bool:
    """On where the embedding model is installed (decided once, in settings)."""
    return settings.VECTOR_SEARCH_DEFAULT


def validate_threshold(value: int) -> None:
    """Thresholds are between 1 KiB and 64 MiB."""
    if not MIN_THRESHOLD <= value <= MAX_THRESHOLD:
        raise ValidationError(
            f"must be between {MIN_THRESHOLD} (1 KiB) and {MAX_THRESHOLD} (64 MiB) bytes; "
            f"got {value}",
            code="out_of_range",
        )


def validate_tool_name(value: str) -> None:
    """A virtual tool name: a letter, then letters, digits, '_' or '-', at most 64 characters."""
    if not TOOL_NAME_PATTERN.match(value):
        raise ValidationError(
            "must start with a letter and contain only letters, digits, '_' or '-' "
            f"(at most 64 characters); got {value!r}",
            code="invalid_tool_name",
        )
    if TOOL_NAME_SEPARATOR in value:
        # '<upstream>__<tool>' is how upstream tools are named; never shadow one.
        raise ValidationError(
            f"must not contain {TOOL_NAME_SEPARATOR!r} (reserved for upstream tool names)",
            code="invalid_tool_name",
        )


def _limit(name: str, label: str) -> SettingSpec:
    """A limit: 0 (the built-in default) is unlimited."""
    return SettingSpec(
        name, label, int, UNLIMITED, LIMIT_VALIDATORS[name], group=LIMITS, shown=shown_limit
    )


SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec("indexing_enabled", "Tool responses indexing enabled", bool, True),
    SettingSpec(
        "response_threshold", "Response threshold (bytes)", int, 16_384, validate_threshold
    ),
    SettingSpec("catalog_indexing_enabled", "Catalog indexing enabled", bool, True),
    SettingSpec("catalog_threshold", "Catalog threshold (bytes)", int, 16_384, validate_threshold),
    SettingSpec("search_tool_name", "Search tool name", str, "IndexSearch", validate_tool_name),
    SettingSpec("read_tool_name", "Read tool name", str, "IndexRead", validate_tool_name),
    # SPEC §1: off, but on where an embedding backend is installed (`make embeddings`).
    SettingSpec("vector_search", "Hybrid vector search", bool, vector_search_default),
    _limit(CALLS_PER_MINUTE, "Calls per minute"),
    _limit(CONCURRENT_CALLS, "Concurrent calls"),
    _limit(BYTES_PER_DAY, "Bytes delivered per day (UTC)"),
    SettingSpec(
        TOOL_LIMITS,
        "Per-tool limits",
        str,
        "",
        validate_tool_limits,
        group=LIMITS,
        shown=shown_tool_limits,
    ),
    # Credentials in tool responses are masked before the client or the index sees them.
    SettingSpec("mask_secrets", "Mask secrets in responses", bool, True, group=GUARDRAILS),
    SettingSpec(
        TOOL_POLICY,
        "Tool policy",
        str,
        "",
        validate_tool_policy,
        group=GUARDRAILS,
        shown=shown_tool_policy,
        layered=layered_policy,
    ),
)
SETTINGS_BY_NAME = {spec.name: spec for spec in SETTINGS}
FIELD_NAMES = tuple(SETTINGS_BY_NAME)


@dataclass(frozen=True)
class EffectiveValue:
    """A resolved setting and where its value came from."""

    value: Any
    source: str
    shown: str | None = field(default=None, compare=False)
    """How the value reads, where its setting says (a limit's 0 is 'unlimited')."""

    def __str__(self) -> str:
        shown = self.shown
        if shown is None:
            shown = {True: "on", False: "off"}.get(self.value, self.value)
        return f"{shown} ({self.source})"


class EffectiveSettings(Mapping[str, EffectiveValue]):
    """The resolved value of every setting; `settings.response_threshold` gives the bare value."""

    def __init__(self, values: dict[str, EffectiveValue]) -> None:
        self._values = values

    def __getitem__(self, name: str) -> EffectiveValue:
        return self._values[name]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name].value
        except KeyError:
            raise AttributeError(name) from None


def resolve_settings(client: object | None, global_settings: object | None) -> EffectiveSettings:
    """Resolve every setting from a client's overrides, the global overrides and the defaults."""
    values: dict[str, EffectiveValue] = {}
    for spec in SETTINGS:
        client_value = getattr(client, spec.name, None)
        global_value = getattr(global_settings, spec.name, None)
        if client_value is not None and global_value is not None and spec.layered:
            value, source = spec.layered(client_value, global_value), CLIENT_THEN_GLOBAL
        elif client_value is not None:
            value, source = client_value, CLIENT_OVERRIDE
        elif global_value is not None:
            value, source = global_value, GLOBAL_OVERRIDE
        else:
            value, source = spec.built_in(), BUILT_IN_DEFAULT
        shown = spec.shown(value) if spec.shown is not None else None
        values[spec.name] = EffectiveValue(value, source, shown)
    return EffectiveSettings(values)


def check_distinct_tool_names(settings: EffectiveSettings) -> None:
    """The search and read tools must not share a name."""
    if settings.search_tool_name == settings.read_tool_name:
        raise ValidationError(
            {
                "read_tool_name": (
                    f"the read tool and the search tool would both be named "
                    f"{settings.read_tool_name!r}"
                )
            },
            code="tool_name_collision",
        )


def parse_setting(name: str, raw: str) -> Any:
    """Turn command-line text into a setting value ('inherit' or 'null' clears the override;
    per-tool limits take their lines separated by newlines or ';').

    Raises:
        ValidationError: unknown setting or a value of the wrong kind or range.
    """
    spec = SETTINGS_BY_NAME.get(name)
    if spec is None:
        raise ValidationError(f"unknown setting {name!r}; known settings: {', '.join(FIELD_NAMES)}")
    text = raw.strip()
    if text.lower() in ("inherit", "null", "none"):
        return None
    if spec.kind is bool:
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValidationError(f"{name}: expected on/off (true/false), got {raw!r}")
    value: Any = text
    if spec.name in (TOOL_LIMITS, TOOL_POLICY):  # one rule per line; ';' on a command line
        value = "\n".join(part.strip() for part in text.split(";"))
    if spec.kind is int:
        try:
            value = int(text)
        except ValueError:
            raise ValidationError(f"{name}: expected a whole number, got {raw!r}") from None
    if spec.check is not None:
        try:
            spec.check(value)
        except ValidationError as error:
            raise ValidationError(f"{name}: {'; '.join(error.messages)}") from None
    return value
