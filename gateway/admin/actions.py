"""Bulk actions on the upstream list: enable or disable the selected upstreams."""

from django.contrib import admin, messages
from django.db.models import QuerySet

from gateway.models import Upstream
from localrouter.change_audit import admin_actor, field_labels, record_change


def _set_enabled(model_admin, request, queryset, enabled: bool) -> None:
    # save() per upstream, so the live gateway's directory hears of each change.
    changed = [upstream for upstream in queryset if upstream.enabled != enabled]
    for upstream in changed:
        upstream.enabled = enabled
        upstream.save(update_fields=["enabled", "updated_at"])
        fields = field_labels(upstream, ["enabled"])
        record_change(actor=admin_actor(request), action="changed", obj=upstream, fields=fields)
    state = "enabled" if enabled else "disabled"
    names = ", ".join(upstream.name for upstream in changed) or "none needed it"
    model_admin.message_user(
        request, f"{len(changed)} upstream(s) {state}: {names}", messages.SUCCESS
    )


@admin.action(description="Enable selected upstreams", permissions=["change"])
def enable_upstreams(model_admin, request, queryset: QuerySet[Upstream]) -> None:
    _set_enabled(model_admin, request, queryset, True)


@admin.action(description="Disable selected upstreams", permissions=["change"])
def disable_upstreams(model_admin, request, queryset: QuerySet[Upstream]) -> None:
    _set_enabled(model_admin, request, queryset, False)
