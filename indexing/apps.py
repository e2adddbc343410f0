from django.apps import AppConfig

from indexing.reports.live_state import LiveState, NoLiveState


class IndexingConfig(AppConfig):
    name = "indexing"
    verbose_name = "Context management"
    live_state: LiveState = NoLiveState()
    """What the reports read of the running gateway; the gateway installs its own."""
