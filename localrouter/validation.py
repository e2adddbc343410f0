"""Turn Django validation errors into one readable line."""

from django.core.exceptions import ValidationError


def describe(error: ValidationError) -> str:
    """'field: message; other: message' for field errors, else the joined messages."""
    if hasattr(error, "error_dict"):
        return "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in error.message_dict.items())
    return " ".join(error.messages)
