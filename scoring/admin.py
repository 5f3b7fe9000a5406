from typing import Any

from django.contrib import admin
from django.db.models import Count, Model, QuerySet
from django.http import HttpRequest

from scoring.models import ApiToken, Dataset, Output, System, Text, Upload


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["name", "level", "domain", "text_count", "created_at"]
    list_filter = ["level", "domain"]
    search_fields = ["name", "description"]
    readonly_fields = ["created_at"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Dataset]:
        return super().get_queryset(request).annotate(text_count=Count("texts"))

    @admin.display(description="Texts", ordering="text_count")
    def text_count(self, dataset: Any) -> int:  # a Dataset with the count get_queryset annotated
        return dataset.text_count


@admin.register(Text)
class TextAdmin(admin.ModelAdmin):
    list_display = ["__str__", "dataset", "position", "external_id", "gold_count", "excerpt"]
    list_filter = ["dataset"]
    list_select_related = ["dataset"]
    search_fields = ["external_id", "content"]
    readonly_fields = ["content_sha256"]
    ordering = ["dataset__name", "position"]

    @admin.display(description="Gold triples")
    def gold_count(self, text: Text) -> int:
        return len(text.gold)

    @admin.display(description="Text")
    def excerpt(self, text: Text) -> str:
        return text.content[:100]


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ["name", "family", "replicate_group", "seed", "is_ground_truth", "output_count"]
    list_filter = ["is_ground_truth", "family"]
    search_fields = ["name", "family", "notes", "replicate_group"]
    readonly_fields = ["is_ground_truth", "provenance"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[System]:
        return super().get_queryset(request).annotate(output_count=Count("outputs"))

    @admin.display(description="Outputs", ordering="output_count")
    def output_count(self, system: Any) -> int:  # a System with the count get_queryset annotated
        return system.output_count


@admin.register(Output)
class OutputAdmin(admin.ModelAdmin):
    list_display = ["text", "system", "dataset", "triple_count", "warning_count", "updated_at"]
    list_filter = ["system", "text__dataset"]
    list_select_related = ["text__dataset", "system"]
    search_fields = ["text__external_id", "system__name", "raw"]
    raw_id_fields = ["text", "upload"]
    readonly_fields = ["updated_at"]

    @admin.display(description="Dataset", ordering="text__dataset__name")
    def dataset(self, output: Output) -> Dataset:
        return output.text.dataset

    @admin.display(description="Triples")
    def triple_count(self, output: Output) -> int:
        return len(output.triples)

    @admin.display(description="Parse warnings")
    def warning_count(self, output: Output) -> int:
        return len(output.parse_warnings)


@admin.register(Upload)
class UploadAdmin(admin.ModelAdmin):
    """Read-only: uploads are the audit trail of imports; they are made by the import service alone."""

    list_display = [
        "created_at",
        "uploaded_by",
        "kind",
        "dataset_name",
        "system_name",
        "file_name",
        "format",
        "texts",
        "triples",
        "warnings",
        "outcome",
    ]
    list_filter = ["kind", "outcome", "format", "dataset_name"]
    list_select_related = ["uploaded_by"]
    search_fields = ["file_name", "sha256", "dataset_name", "system_name", "message"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are made by their users on the API tokens page, or by ``manage.py create_api_token``
    (either shows the key once); here they are listed and revoked. The list says so (its template)."""

    list_display = ["prefix", "user", "name", "created_at", "last_used_at"]
    list_filter = ["user"]
    list_select_related = ["user"]
    search_fields = ["prefix", "name", "user__username"]
    fields = ["user", "name", "prefix", "created_at", "last_used_at"]
    readonly_fields = ["user", "prefix", "created_at", "last_used_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
