"""The one error type the index tools raise; the gateway turns it into a tool error result."""

import difflib

_MAX_LISTED_LABELS = 30


class IndexToolError(Exception):
    """A problem the agent can fix: bad arguments, an unknown or evicted label."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class LabelEvictedError(IndexToolError):
    """The label existed but its document was evicted to keep the store within its bound."""


def list_labels(labels: list[str]) -> str:
    """Render labels as a short quoted list, noting how many were left out."""
    if not labels:
        return "nothing is indexed in this session yet"
    shown = ", ".join(f'"{label}"' for label in labels[:_MAX_LISTED_LABELS])
    hidden = len(labels) - _MAX_LISTED_LABELS
    return shown + (f" and {hidden} more" if hidden > 0 else "")


def unknown_label_error(label: str, known: list[str]) -> IndexToolError:
    """Build the error for a label that was never indexed, naming the closest known labels."""
    close = difflib.get_close_matches(label, known, n=5, cutoff=0.5)
    if close:
        return IndexToolError(f'Unknown label "{label}". Closest labels: {list_labels(close)}.')
    return IndexToolError(f'Unknown label "{label}". Known labels: {list_labels(known)}.')


def evicted_label_error(label: str, max_bytes: int) -> LabelEvictedError:
    """Build the error for a label whose document was evicted."""
    return LabelEvictedError(
        f'Label "{label}" was evicted: this session\'s index keeps at most '
        f"{max_bytes:,} bytes of text and drops the oldest documents first. "
        "Call the tool again to get its response."
    )
