from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Human evaluation"

    def ready(self) -> None:
        from annotation.access import blind_dataset_ids
        from core.permissions import register_blind_datasets

        register_blind_datasets(blind_dataset_ids)
