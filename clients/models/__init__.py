from clients.models.client import Client
from clients.models.global_settings import GlobalSettings

__all__ = ["Client", "GlobalSettings"]
