"""A list of strings edited as one text box per item (an upstream's command arguments)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.html import format_html, format_html_join


class StringListWidget(forms.Widget):
    """One text input per item plus an empty one; the page's script adds more on request."""

    def __init__(self, add_label: str = "Add", attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.add_label = add_label

    def value_from_datadict(self, data, files, name: str) -> list[str]:
        return data.getlist(name) if hasattr(data, "getlist") else list(data.get(name) or [])

    def render(self, name: str, value: Any, attrs=None, renderer=None) -> str:
        items = [*(value if isinstance(value, list) else []), ""]
        element_id = (attrs or {}).get("id", f"id_{name}")
        inputs = format_html_join(
            "",
            '<div class="string-list-item"><input type="text" name="{}" value="{}" '
            'class="vTextField" aria-label="{} {}"></div>',
            ((name, item, name, number) for number, item in enumerate(items, start=1)),
        )
        return format_html(
            '<div class="string-list" id="{}">{}<button type="button" class="button '
            'string-list-add">{}</button></div>',
            element_id,
            inputs,
            self.add_label,
        )


class StringListField(forms.Field):
    """A list of strings from a `StringListWidget`; empty boxes are dropped."""

    widget = StringListWidget

    def to_python(self, value: Any) -> list[str]:
        if value in (None, ""):
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise forms.ValidationError("expected a list of text values")
        return [item for item in value if item != ""]

    def has_changed(self, initial: Any, data: Any) -> bool:
        return (initial or []) != self.to_python(data)
