from django.apps import AppConfig


class GatewayConfig(AppConfig):
    name = "gateway"
    verbose_name = "Gateway"

    def ready(self) -> None:
        from gateway.upstream_status import upstream_health, upstream_names
        from indexing import gateway_facts

        gateway_facts.provide_upstreams(names=upstream_names, health=upstream_health)
