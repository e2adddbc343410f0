"""The indexing app's models, where Django looks for them; they live with the reports."""

from indexing.reports.models import IndexedLabel, SessionRecord

__all__ = ["IndexedLabel", "SessionRecord"]
