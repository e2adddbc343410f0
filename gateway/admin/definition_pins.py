"""Admin for pinned tool definitions: what is held, the change as a diff, and approval.

Anyone who may view pins sees the list and the diffs; only a superuser approves.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import F, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse

from gateway.guardrails.approval import definition_diff, pins_approve
from gateway.guardrails.models import DefinitionPin
from localrouter.change_audit import AuditedAdminMixin, admin_actor


class AwaitingApprovalFilter(admin.SimpleListFilter):
    title = "approval"
    parameter_name = "awaiting"

    def lookups(self, request, model_admin):
        return [("yes", "awaiting approval"), ("no", "approved")]

    def queryset(self, request, queryset: QuerySet[DefinitionPin]):
        if self.value() == "yes":
            return queryset.held()
        if self.value() == "no":
            return queryset.filter(seen_digest=F("approved_digest"))
        return queryset


def _approve(model_admin, request: HttpRequest, pins: QuerySet[DefinitionPin]) -> None:
    if not request.user.is_superuser:
        raise PermissionDenied
    count = pins_approve(pins=pins.select_related("upstream"), actor=admin_actor(request))
    model_admin.message_user(
        request, f"{count} definition(s) approved; clients see them again.", messages.SUCCESS
    )


@admin.action(description="Approve the selected definitions (superusers)")
def approve_definitions(model_admin, request, queryset: QuerySet[DefinitionPin]) -> None:
    _approve(model_admin, request, queryset)


@admin.register(DefinitionPin)
class DefinitionPinAdmin(AuditedAdminMixin, admin.ModelAdmin):
    list_display = ["upstream", "item", "state", "seen_at", "approved_by", "approved_at"]
    list_display_links = ["item"]
    list_filter = [AwaitingApprovalFilter, "upstream"]
    search_fields = ["upstream__name", "name"]
    actions = [approve_definitions]

    @admin.display(description="tool", ordering="name")
    def item(self, pin: DefinitionPin) -> str:
        return pin.label

    @admin.display(description="state")
    def state(self, pin: DefinitionPin) -> str:
        return pin.state

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("upstream")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser

    def get_actions(self, request: HttpRequest):
        actions = super().get_actions(request)
        if not request.user.is_superuser:
            actions.pop("approve_definitions", None)
        return actions

    def change_view(self, request: HttpRequest, object_id: str, form_url="", extra_context=None):
        """The review page: the approved definition against the one seen, and Approve."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        pin = get_object_or_404(self.get_queryset(request), pk=object_id)
        if request.method == "POST":
            _approve(self, request, DefinitionPin.objects.filter(pk=pin.pk))
            return HttpResponseRedirect(reverse("admin:gateway_definitionpin_changelist"))
        return self.review(request, pin)

    def review(self, request: HttpRequest, pin: DefinitionPin) -> HttpResponse:
        return TemplateResponse(
            request,
            "admin/gateway/definitionpin/review.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": f"Review {pin}",
                "pin": pin,
                "diff": definition_diff(pin),
                "can_approve": request.user.is_superuser and pin.held,
            },
        )
