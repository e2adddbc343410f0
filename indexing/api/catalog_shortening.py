"""Short forms for the catalog: first sentences, tools without their documentation."""

from __future__ import annotations

import re
from typing import Any

import mcp_types as types

DESCRIPTION_CHARS = 120
SCHEMA_DOC_KEYS = frozenset({"description", "title", "examples", "$comment"})
NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
SENTENCE_END = re.compile(r"[.!?]\s")
CONTAINERS = (dict, list)


def first_sentence(text: str, limit: int) -> str:
    """The first sentence (or line) of `text`, at most `limit` characters."""
    text = " ".join(text.strip().split("\n\n", 1)[0].split())
    end = SENTENCE_END.search(text)
    sentence = text[: end.start() + 1] if end else text
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def strip_schema_docs(schema: Any, *, names: bool = False) -> Any:
    """A JSON schema without documentation keywords; property names are left alone.

    Parts with nothing to strip are shared with `schema`, not copied.
    """
    # Only containers are passed on: most values are scalars, and a call each added up.
    if isinstance(schema, list):
        stripped = [strip_schema_docs(x) if isinstance(x, CONTAINERS) else x for x in schema]
    elif not isinstance(schema, dict):
        return schema
    elif names:  # property (or definition) names: every key is kept, whatever it is called
        stripped = {
            key: strip_schema_docs(value) if isinstance(value, CONTAINERS) else value
            for key, value in schema.items()
        }
    else:
        stripped = {
            key: strip_schema_docs(value, names=key in NAME_MAPS)
            if isinstance(value, CONTAINERS)
            else value
            for key, value in schema.items()
            if key not in SCHEMA_DOC_KEYS
        }
    # An unchanged part is returned itself, so only what lost documentation is kept twice.
    return schema if stripped == schema else stripped


def shorten_tool(tool: types.Tool) -> types.Tool:
    """A tool with a one-sentence description and an undocumented (but intact) schema."""
    return tool.model_copy(
        update={
            "description": first_sentence(tool.description or "", DESCRIPTION_CHARS) or None,
            "input_schema": strip_schema_docs(tool.input_schema),
        }
    )
