"""Which of the provider's groups make a member staff or superuser."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Role:
    """What a member may do in the admin."""

    is_staff: bool
    is_superuser: bool


@dataclass(frozen=True)
class GroupRoles:
    """Groups of the claim `claim` that make a member staff, or superuser (and staff)."""

    claim: str
    staff: frozenset[str]
    superuser: frozenset[str]

    def groups(self, claims: Mapping[str, Any]) -> set[str]:
        """The member's groups: the claim as a list of names (one name alone counts too)."""
        value = claims.get(self.claim)
        if isinstance(value, str):
            return {value}
        if isinstance(value, list):
            return {item for item in value if isinstance(item, str)}
        return set()

    def role_of(self, claims: Mapping[str, Any]) -> Role | None:
        """The member's role, or None when none of their groups may sign in."""
        groups = self.groups(claims)
        if groups & self.superuser:
            return Role(is_staff=True, is_superuser=True)
        if groups & self.staff:
            return Role(is_staff=True, is_superuser=False)
        return None
