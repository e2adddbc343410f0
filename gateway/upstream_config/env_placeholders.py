"""`${VAR}` placeholders in upstream settings: one syntax, filled in when an upstream starts.

Client config files spell variables several ways; the import writes them all as
`${VAR}` or `${VAR:-default}` (the shell's syntax, as Claude Code uses it):
`${env:VAR}` (Cursor, VS Code, Windsurf) becomes `${VAR}`, and VS Code's `${input:id}`
becomes `${ID}` (the id in capitals, other characters as '_').

Values come from the gateway's environment (which includes its `.env` file), never from
the gateway's own settings: `SECRET_KEY`, `DATABASE_URL`, `REDIS_URL` and `LOCALROUTER_*`
read as unset, so an upstream's settings cannot leak them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
FOREIGN_PLACEHOLDER = re.compile(r"\$\{(env|input):([^}]*)\}")
PROTECTED_NAMES = frozenset({"SECRET_KEY", "DATABASE_URL", "REDIS_URL"})
PROTECTED_PREFIX = "LOCALROUTER_"


def is_protected(name: str) -> bool:
    """True for the gateway's own settings, which an upstream may never read."""
    return name in PROTECTED_NAMES or name.startswith(PROTECTED_PREFIX)


def variable_for_input(input_id: str) -> str:
    """The variable a VS Code `${input:id}` becomes: `perplexity-key` -> `PERPLEXITY_KEY`."""
    name = re.sub(r"[^A-Za-z0-9_]+", "_", input_id.strip()).strip("_").upper()
    return name if name and not name[0].isdigit() else f"INPUT_{name}"


def convert(text: str) -> str:
    """Rewrite `${env:VAR}` and `${input:id}` in the one placeholder syntax."""

    def rewrite(match: re.Match[str]) -> str:
        kind, name = match.group(1), match.group(2).strip()
        return "${" + (name if kind == "env" else variable_for_input(name)) + "}"

    return FOREIGN_PLACEHOLDER.sub(rewrite, text)


def expand(text: str, environ: Mapping[str, str]) -> tuple[str, list[str]]:
    """`text` with each placeholder filled in, and the variables that had no value.

    An unset (or protected) variable takes its `:-default`; without one it is missing
    and left as written.
    """
    missing: list[str] = []

    def fill(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = None if is_protected(name) else environ.get(name)
        if value:
            return value
        if default is not None:
            return default
        missing.append(name)
        return match.group(0)

    return PLACEHOLDER.sub(fill, text), missing


def missing_variables(texts: Iterable[str], environ: Mapping[str, str]) -> list[str]:
    """The variables these texts need that `environ` does not provide, sorted."""
    missing: set[str] = set()
    for text in texts:
        missing.update(expand(text, environ)[1])
    return sorted(missing)
