"""Tool lists as real servers send them, made fit for the gateway's clients.

A tool name listed twice by one server keeps its first definition; the repeats are
dropped and logged once per listing (a call by that name reaches the upstream anyway, and
two tools of one exposed name would break clients that index tools by name).
"""

from __future__ import annotations

import logging

import mcp_types as types

logger = logging.getLogger(__name__)


def first_of_each_name(upstream: str, tools: list[types.Tool]) -> list[types.Tool]:
    """The tools in order, the first definition of each name only."""
    kept: dict[str, types.Tool] = {}
    repeated: set[str] = set()
    for tool in tools:
        if tool.name in kept:
            repeated.add(tool.name)
        else:
            kept[tool.name] = tool
    if repeated:
        logger.warning(
            "upstream %r lists these tool names more than once; the first of each is kept: %s",
            upstream,
            ", ".join(sorted(repeated)),
        )
    return list(kept.values())
