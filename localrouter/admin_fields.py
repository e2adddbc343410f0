"""Form fields as the admin shows them: readable help texts and Inherit / On / Off choices."""

from __future__ import annotations

from django import forms
from django.db import models
from django.utils.html import escape


class InheritOnOffSelect(forms.NullBooleanSelect):
    """A nullable boolean override: empty inherits, the others turn the setting on or off."""

    def __init__(self, attrs=None) -> None:
        super().__init__(attrs)
        self.choices = [("unknown", "Inherit"), ("true", "On"), ("false", "Off")]


class ReadableFieldsMixin:
    """For ModelAdmins: nullable booleans read Inherit / On / Off, and help texts show as
    written, in forms and read-only views alike (Django marks them safe, so a text like
    '<upstream>__<tool>' would vanish as a tag)."""

    def formfield_for_dbfield(self, db_field: models.Field, request, **kwargs):
        if isinstance(db_field, models.BooleanField) and db_field.null:
            kwargs["widget"] = InheritOnOffSelect
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None and db_field.help_text:
            field.help_text = escape(db_field.help_text)
        return field

    def get_form(self, request, obj=None, change=False, **kwargs):
        # Read-only fields (view-only staff) take their help text from the form's Meta.
        escaped = {
            field.name: escape(field.help_text)
            for field in self.opts.get_fields()
            if getattr(field, "help_text", "")
        }
        kwargs["help_texts"] = {**escaped, **kwargs.get("help_texts", {})}
        return super().get_form(request, obj, change, **kwargs)
