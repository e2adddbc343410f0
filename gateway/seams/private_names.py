"""What a seam module relies on of a library, and the error when a release no longer has it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from typing import Any


class SeamBroken(RuntimeError):
    """A library no longer has a private name that one of the gateway's seam modules uses."""


@dataclass(frozen=True, slots=True)
class PrivateName:
    """One private name of a library: an attribute of a module or class, or (`on_instances`)
    one that the class's `__init__` sets on each instance."""

    owner: Any
    name: str
    on_instances: bool = False

    def present(self) -> bool:
        """Whether the library still has it."""
        if self.on_instances:
            # Instance attributes exist only once an instance does: the class's constructor
            # must still assign it (its name is among those the constructor's code uses).
            init = getattr(self.owner, "__init__", None)
            return self.name in getattr(getattr(init, "__code__", None), "co_names", ())
        return hasattr(self.owner, self.name)

    def __str__(self) -> str:
        owner = getattr(self.owner, "__qualname__", None) or self.owner.__name__
        module = getattr(self.owner, "__module__", None)
        place = f"{module}.{owner}" if module and module != owner else owner
        return f"{place}{'()' if self.on_instances else ''}.{self.name}"


def version_of(distribution: str) -> str:
    """The installed version of a distribution, or 'not installed'."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "(not installed)"


def broken(seam: str, distribution: str, what: str) -> SeamBroken:
    """The error for a seam whose library no longer has `what`."""
    return SeamBroken(
        f"{seam}: {distribution} {version_of(distribution)} no longer has {what}, which this "
        f"seam module relies on; update {seam} for this release of {distribution}, or install "
        "the series pyproject.toml pins"
    )


def verify(seam: str, distribution: str, names: Iterable[PrivateName]) -> None:
    """Check that the library still has every private name the seam uses.

    Raises:
        SeamBroken: one or more are gone; the message names the seam, the library, its
            version and each missing name.
    """
    missing = [str(name) for name in names if not name.present()]
    if missing:
        raise broken(seam, distribution, ", ".join(missing))
