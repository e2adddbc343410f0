"""Admin form for upstreams: env values and headers are never shown back in full."""

from __future__ import annotations

import re

from django import forms

from gateway.admin.widgets import StringListField, StringListWidget
from gateway.models import Upstream

MASK = "••••••••"
PLACEHOLDER = re.compile(r"\$\{[^}]*\}")
PLAIN_WORDS = re.compile(r"^[A-Za-z :/_-]{0,16}$")


def is_template(value: str) -> bool:
    """A value made of `${VAR}` placeholders and a few plain words ("Bearer ${TOKEN}")."""
    return bool(PLACEHOLDER.search(value)) and bool(PLAIN_WORDS.match(PLACEHOLDER.sub("", value)))


def masked_lines(mapping: dict[str, str], *, separator: str) -> str:
    """NAME=value lines with secret values replaced by the mask (placeholders stay readable)."""
    return "\n".join(
        f"{key}{separator}{value if is_template(value) else MASK}" for key, value in mapping.items()
    )


def parse_lines(text: str, stored: dict[str, str], *, separator: str) -> dict[str, str]:
    """Parse KEY=VALUE (or 'Name: value') lines; a masked value keeps what is stored.

    Raises:
        forms.ValidationError: a line without a separator, an empty key, or a masked
            value for a key that has nothing stored.
    """
    result: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        key, found, value = line.partition(separator)
        key = key.strip()
        if separator == ":":
            value = value.strip()
        if not found or not key:
            raise forms.ValidationError(f"line {number}: expected NAME{separator}value")
        if value == MASK:
            if key not in stored:
                raise forms.ValidationError(f"line {number}: enter a value for {key}")
            value = stored[key]
        result[key] = value
    return result


class UpstreamAdminForm(forms.ModelForm):
    """Edits env and headers as text lines without revealing stored values."""

    args = StringListField(
        label="Arguments",
        required=False,
        widget=StringListWidget(add_label="Add argument"),
        help_text="One argument per box, passed as is (no shell quoting); empty boxes are dropped.",
    )
    env_text = forms.CharField(
        label="Environment",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        help_text=f"One NAME=value per line. Stored values show as {MASK}; leave them to keep "
        "them. ${VAR} and ${VAR:-default} are filled in from the gateway's environment (or "
        ".env) each time the upstream starts.",
    )
    headers_text = forms.CharField(
        label="Headers",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=f"One 'Name: value' per line. Stored values show as {MASK}.",
    )

    class Meta:
        model = Upstream
        fields = ["name", "transport", "enabled", "timeout_seconds", "notes"]
        fields += ["command", "args", "cwd", "url"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Either may be left out of the form (read-only for staff who are not superusers).
        if "env_text" in self.fields:
            self.fields["env_text"].initial = masked_lines(self.instance.env or {}, separator="=")
        if "headers_text" in self.fields:
            self.fields["headers_text"].initial = masked_lines(
                self.instance.headers or {}, separator=": "
            )

    def clean_env_text(self) -> dict[str, str]:
        return parse_lines(self.cleaned_data["env_text"], self.instance.env or {}, separator="=")

    def clean_headers_text(self) -> dict[str, str]:
        return parse_lines(
            self.cleaned_data["headers_text"], self.instance.headers or {}, separator=":"
        )

    def clean(self) -> dict:
        cleaned = super().clean()
        # Before the model's own validation, which ModelForm runs after `clean`.
        self.instance.env = cleaned.get("env_text", self.instance.env)
        self.instance.headers = cleaned.get("headers_text", self.instance.headers)
        return cleaned
