from django.apps import AppConfig


class GatewayConfig(AppConfig):
    name = "gateway"
    verbose_name = "Gateway"

    def ready(self) -> None:
        from gateway.operations.audit.changes import save_change
        from gateway.sessions.live import GatewayLiveState
        from indexing.reports.live_state import install_live_state
        from localrouter import change_audit

        install_live_state(GatewayLiveState())  # the reports read live sessions through it
        change_audit.on_change(save_change)
