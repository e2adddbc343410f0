"""How the gateway names an upstream's tools and prompts: `<upstream>__<name>`.

The separator is reserved: no upstream name and no index tool name may contain it,
so a name with it always belongs to an upstream (`gateway.catalog.naming` builds the names).
"""

TOOL_NAME_SEPARATOR = "__"


def upstream_part(exposed: str) -> str | None:
    """The upstream an exposed name starts with, or None for a name without the separator."""
    upstream, separator, _ = exposed.partition(TOOL_NAME_SEPARATOR)
    return upstream if separator else None


def tool_part(exposed: str) -> str:
    """The name after the upstream (the whole name when there is no separator)."""
    return exposed.split(TOOL_NAME_SEPARATOR, 1)[-1]
