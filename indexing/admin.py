"""The indexing app's admin pages (Django's autodiscovery imports this module); they live with
the reports."""

from indexing.reports import admin  # noqa: F401
