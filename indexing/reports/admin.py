"""Admin for session reports: the session list, one session's report, its labels, an overview.

Records are written by the gateway only; here they are read (and deleted). The figures
come from `indexing.reports.summaries`, the charts from `indexing.reports.charts`.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from clients.models import Client
from indexing.reports import charts
from indexing.reports import summaries as reports
from indexing.reports.live_state import live_state
from indexing.reports.models import IndexedLabel, SessionRecord

MAX_OVERVIEW_DAYS = 366
MAX_READ_LINES = 2000


class UpstreamFilter(admin.SimpleListFilter):
    """Sessions (or labels) that used one upstream, by the `<upstream>__` tool prefix."""

    title = "upstream"
    parameter_name = "upstream"

    def lookups(self, request, model_admin):
        return [(name, name) for name in live_state().upstream_names()]

    def queryset(self, request, queryset):
        upstream = self.value()
        if not upstream:
            return queryset
        if queryset.model is IndexedLabel:
            return queryset.filter(tool__startswith=f"{upstream}__")
        return reports.sessions_using_upstream(queryset, upstream)


class OverviewForm(forms.Form):
    """The period (and optionally the client) the overview covers."""

    days = forms.IntegerField(min_value=1, max_value=MAX_OVERVIEW_DAYS, initial=30)
    client = forms.ModelChoiceField(
        Client.objects.order_by("name"), required=False, empty_label="all clients"
    )


class LabelPageForm(forms.Form):
    """Which lines of a label to show: IndexRead's offset (`61` or `61-2`) and a line count."""

    offset = forms.RegexField(regex=r"^\d{1,9}(-\d{1,6})?$", required=False, max_length=20)
    limit = forms.IntegerField(min_value=1, max_value=MAX_READ_LINES, required=False)


def _bytes_saved(record: SessionRecord) -> str:
    savings = reports.Savings(record.bytes_from_upstreams, record.bytes_to_client)
    return f"{savings.percent:.0f}%" if savings.received else "—"


@admin.register(SessionRecord)
class SessionRecordAdmin(admin.ModelAdmin):
    list_display = [
        "report_link",
        "client_label",
        "protocol_version",
        "client_software",
        "duration",
        "call_count",
        "error_count",
        "received",
        "delivered",
        "saved",
    ]
    list_display_links = None
    list_filter = ["client", ("started_at", admin.DateFieldListFilter), UpstreamFilter]
    search_fields = ["client_label"]
    search_help_text = "Client, session key, tool name, indexed label or tool."
    show_full_result_count = False
    list_per_page = 50

    @admin.display(description="session", ordering="started_at")
    def report_link(self, record: SessionRecord) -> str:
        url = reverse("admin:indexing_sessionrecord_report", args=[record.pk])
        return format_html('<a href="{}">{}</a>', url, f"{record.started_at:%Y-%m-%d %H:%M:%S}")

    @admin.display(description="saved")
    def saved(self, record: SessionRecord) -> str:
        return _bytes_saved(record)

    # Compact columns, so that the list fits beside its filters (the session link is the start).
    @admin.display(description="duration")
    def duration(self, record: SessionRecord) -> str:
        return str(reports.session_duration(record))

    @admin.display(description="received", ordering="bytes_from_upstreams")
    def received(self, record: SessionRecord) -> str:
        return filesizeformat(record.bytes_from_upstreams)

    @admin.display(description="delivered", ordering="bytes_to_client")
    def delivered(self, record: SessionRecord) -> str:
        return filesizeformat(record.bytes_to_client)

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if not term:
            return queryset, False
        return reports.sessions_matching(queryset, term), False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # A record has nothing to edit: its page is the report.
        if not object_id.isdigit():
            raise Http404
        url = reverse("admin:indexing_sessionrecord_report", args=[int(object_id)])
        return HttpResponseRedirect(url)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("overview/", view(self.overview_view), name="indexing_sessionrecord_overview"),
            path("<int:pk>/report/", view(self.report_view), name="indexing_sessionrecord_report"),
            path(
                "<int:pk>/labels/<int:label_id>/",
                view(self.label_view),
                name="indexing_sessionrecord_label",
            ),
            *super().get_urls(),
        ]

    def _context(self, request: HttpRequest, title: str, **extra) -> dict:
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            **extra,
        }

    def _record(self, request: HttpRequest, pk: int) -> SessionRecord:
        record = get_object_or_404(SessionRecord, pk=pk)
        if not self.has_view_permission(request, record):
            raise PermissionDenied
        return record

    def report_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        report = reports.session_report(self._record(request, pk))
        chart = charts.received_vs_delivered(
            report.responses.received,
            report.responses.delivered,
            title="Bytes received from upstreams vs delivered to the client",
        )
        calls_chart = charts.bar_chart(
            [(row.upstream, row.total) for row in report.upstreams], title="Calls per upstream"
        )
        context = self._context(
            request,
            f"Session of {report.record.client_label}",
            report=report,
            record=report.record,
            chart=chart,
            calls_chart=calls_chart,
            can_read_content=request.user.is_superuser,
        )
        return TemplateResponse(request, "admin/indexing/sessionrecord/report.html", context)

    def label_view(self, request: HttpRequest, pk: int, label_id: int) -> HttpResponse:
        record = self._record(request, pk)
        if not request.user.is_superuser:
            raise PermissionDenied
        label = get_object_or_404(IndexedLabel, pk=label_id, session=record)
        form = LabelPageForm(request.GET)
        content = None
        if form.is_valid():
            data = form.cleaned_data
            content = reports.label_content(
                record, label.label, data["offset"] or None, data["limit"]
            )
        context = self._context(
            request, label.label, record=record, label=label, form=form, content=content
        )
        return TemplateResponse(request, "admin/indexing/sessionrecord/label.html", context)

    def overview_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = OverviewForm(request.GET or {"days": 30})
        overview = None
        if form.is_valid():
            client = form.cleaned_data["client"]
            overview = reports.overview(
                days=form.cleaned_data["days"], client_id=client.pk if client else None
            )
        context = self._context(
            request,
            "Savings overview",
            form=form,
            overview=overview,
            upstreams=live_state().upstream_health(),
            **(_overview_charts(overview) if overview else {}),
        )
        return TemplateResponse(request, "admin/indexing/sessionrecord/overview.html", context)


def _overview_charts(overview: reports.Overview) -> dict:
    days = overview.days
    return {
        "days_chart": charts.column_chart(
            [day.name for day in days],
            [
                charts.Series(
                    "received from upstreams",
                    [d.savings.received for d in days],
                    charts.RECEIVED,
                ),
                charts.Series(
                    "delivered to clients", [d.savings.delivered for d in days], charts.DELIVERED
                ),
            ],
            title="Bytes received vs delivered per day",
            formatter=charts.size,
        ),
        "clients_chart": charts.paired_bar_chart(
            [(c.name, (c.savings.received, c.savings.delivered)) for c in overview.clients],
            series=[
                charts.Series("received from upstreams", [], charts.RECEIVED),
                charts.Series("delivered to the client", [], charts.DELIVERED),
            ],
            title="Bytes received vs delivered per client",
            formatter=charts.size,
        ),
        "tools_chart": charts.bar_chart(overview.tools, title="Busiest tools (calls)"),
    }


@admin.register(IndexedLabel)
class IndexedLabelAdmin(admin.ModelAdmin):
    # A label is `<tool>:<run>`, so the tool and run need no columns of their own: the rest
    # then fits beside the filters at 1400 px.
    list_display = [
        "label",
        "received",
        "placeholder",
        "lines",
        "chunks",
        "index_time",
        "session_link",
    ]
    list_display_links = None
    list_select_related = ["session"]
    list_filter = [
        ("session__client", admin.RelatedFieldListFilter),
        ("session__started_at", admin.DateFieldListFilter),
        UpstreamFilter,
    ]
    search_fields = ["label", "tool"]
    show_full_result_count = False
    list_per_page = 100

    @admin.display(description="received", ordering="original_bytes")
    def received(self, label: IndexedLabel) -> str:
        return filesizeformat(label.original_bytes)

    @admin.display(description="placeholder", ordering="delivered_bytes")
    def placeholder(self, label: IndexedLabel) -> str:
        return filesizeformat(label.delivered_bytes)

    @admin.display(description="time to index", ordering="seconds_to_index")
    def index_time(self, label: IndexedLabel) -> str:
        return f"{label.seconds_to_index:.2f} s"

    @admin.display(description="session", ordering="session__started_at")
    def session_link(self, label: IndexedLabel) -> str:
        url = reverse("admin:indexing_sessionrecord_report", args=[label.session_id])
        return format_html('<a href="{}">{}</a>', url, str(label.session))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
