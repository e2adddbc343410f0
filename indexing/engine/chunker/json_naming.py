"""How JSON members are named in chunk titles and Contents: key paths, array items by
their identity fields, batches by the names they hold."""

from collections.abc import Iterable
from itertools import islice
from json.encoder import encode_basestring

from indexing.engine.text import one_line

NAME_FIELDS = ("name", "title", "path", "key", "uri", "url", "slug", "label", "filename", "email")
ID_FIELDS = ("id", "uuid", "number")
_IDENTITY_FIELDS = frozenset(NAME_FIELDS + ID_FIELDS)
_NAME_FIELD_SET = frozenset(NAME_FIELDS)
_FIELD_ORDER = {field: order for order, field in enumerate(NAME_FIELDS + ID_FIELDS)}
_NAMING_TYPES = frozenset((str, int, float))
"""The values that can name an item (as JSON parsers make them: `True` is not one)."""
_BATCH_TITLE_CHARS = 200
NAMES_SHOWN = _BATCH_TITLE_CHARS // len(", [0]") + 1
"""A batch's title lists its members' names until it is cut: this many make it too long."""


def identity_of(item: object) -> str | None:
    """Name an array item by its identity fields: `fix login (id=1234)`, `README.md`, `id=7`.

    The first name field and the first id field (in their tuples' order) holding a scalar.
    """
    if not isinstance(item, dict):
        return None
    present = _IDENTITY_FIELDS.intersection(item)  # mostly none or one: few lookups after
    name = identifier = None
    for field in sorted(present, key=_FIELD_ORDER.__getitem__):
        value = item[field]
        if value is None or type(value) not in _NAMING_TYPES:
            continue
        if field in _NAME_FIELD_SET:
            if name is None:
                name = one_line(str(value), 60)
        elif identifier is None:
            identifier = f"{field}={one_line(str(value), 60)}"
    if name is None:
        return identifier
    return name + ("" if identifier is None else f" ({identifier})")


def item_naming(path: str, position: int, item: object) -> tuple[str, str, str]:
    """An array item's name, path and title: `[3] README.md (id=7)`, `$.files[3]`,
    `$.files[3] (README.md (id=7))`."""
    identity = identity_of(item) if type(item) is dict else None
    item_path = f"{path}[{position}]"
    if identity is None:
        return f"[{position}]", item_path, item_path
    return f"[{position}] {identity}", item_path, f"{item_path} ({identity})"


def batch_title(path: str, names: Iterable[str]) -> str:
    """`path: name, name, …`, cut to one line of _BATCH_TITLE_CHARS."""
    return one_line(f"{path}: " + ", ".join(islice(names, NAMES_SHOWN)), _BATCH_TITLE_CHARS)


def member_path(path: str, key: str) -> str:
    """Return the JSONPath-style path of `key` under `path`."""
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{encode_basestring(key)}]"
