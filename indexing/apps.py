from django.apps import AppConfig


class IndexingConfig(AppConfig):
    name = "indexing"
    verbose_name = "Context management"

    def ready(self) -> None:
        from indexing.engine.compressor import tune_thread_switching

        tune_thread_switching()
