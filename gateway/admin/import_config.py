"""Admin page: import upstreams from a pasted or uploaded MCP client config file."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from gateway.services import upstreams_import
from gateway.upstream_config.config_files import ConfigFileError
from localrouter.change_audit import admin_actor

MAX_FILE_BYTES = 1024 * 1024


class ImportForm(forms.Form):
    config_file = forms.FileField(
        required=False, help_text="claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json …"
    )
    config_text = forms.CharField(
        required=False,
        label="…or paste it",
        widget=forms.Textarea(attrs={"rows": 12, "cols": 80, "spellcheck": "false"}),
    )
    update = forms.BooleanField(
        required=False, label="Replace upstreams that already exist (their notes stay)"
    )
    dry_run = forms.BooleanField(
        required=False,
        label="Preview only",
        help_text="Show what the import would do and which values are missing; save nothing.",
    )

    def clean(self) -> dict:
        data = super().clean()
        upload = data.get("config_file")
        if upload is not None:
            if upload.size > MAX_FILE_BYTES:
                raise forms.ValidationError("the file is over 1 MiB; is it the right one?")
            try:
                data["text"], data["source"] = upload.read().decode("utf-8"), upload.name
            except UnicodeDecodeError:
                raise forms.ValidationError("the file is not UTF-8 text") from None
        elif data.get("config_text", "").strip():
            data["text"], data["source"] = data["config_text"], "pasted text"
        else:
            raise forms.ValidationError("choose a file or paste its contents")
        return data


def import_view(model_admin, request: HttpRequest) -> HttpResponse:
    """GET shows the form; POST imports everything or nothing (or previews) and says what."""
    form = ImportForm(request.POST or None, request.FILES or None)
    preview: list[str] = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            report = upstreams_import(
                text=data["text"],
                source=data["source"],
                update=data["update"],
                dry_run=data["dry_run"],
                actor=admin_actor(request),
            )
        except ConfigFileError as error:
            form.add_error(None, str(error))
        else:
            if data["dry_run"]:
                preview = report
            else:
                for line in report:
                    messages.info(request, line)
                return HttpResponseRedirect(reverse("admin:gateway_upstream_changelist"))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Import MCP servers",
        "opts": model_admin.model._meta,
        "form": form,
        "preview": preview,
    }
    return TemplateResponse(request, "admin/gateway/upstream/import.html", context)
