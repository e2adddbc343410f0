from django.apps import AppConfig


class GatewayConfig(AppConfig):
    name = "gateway"
    verbose_name = "Gateway"

    def ready(self) -> None:
        from gateway.operations.audit.changes import save_change
        from gateway.upstream_config.status import upstream_health, upstream_names
        from indexing.reports import live_state as gateway_facts
        from localrouter import change_audit

        gateway_facts.provide_upstreams(names=upstream_names, health=upstream_health)
        change_audit.on_change(save_change)
