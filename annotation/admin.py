"""Admin views of the annotation data.

Campaigns are created on the campaign pages (or by ``import_judgements``), which sample texts
and fill queues; the admin only renames, edits instructions, opens or closes them and sets the
practice pass mark. Items, assignments, judgements and practice pairs are research records: the
admin shows them and never edits them.
"""

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString

from annotation.models import Assignment, Campaign, CampaignAnnotator, Item, Judgement, PracticeItem
from annotation.triple_checks.models import TripleCheck, TripleCheckItem

# A membership as the campaign shows it: read only, changed on the campaign's pages.
MEMBERSHIP_FIELDS = (
    "annotator",
    "active",
    "added_at",
    "practice_attempt",
    "practice_passed_at",
    "excluded",
    "exclusion_changed_by",
    "exclusion_changed_at",
)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class MembershipInline(admin.TabularInline):
    model = CampaignAnnotator
    fields = MEMBERSHIP_FIELDS
    readonly_fields = MEMBERSHIP_FIELDS
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "is_open", "is_imported", "created_at", "page"]
    list_filter = ["is_open", "is_imported", "dataset"]
    list_select_related = ["dataset"]
    search_fields = ["name"]
    fields = [
        "name",
        "instructions",
        "is_open",
        "dataset",
        "sample_seed",
        "overlap_share",
        "practice_pass_mark",
        "attention_share",
        "is_imported",
        "created_by",
        "created_at",
    ]
    readonly_fields = [
        "dataset",
        "sample_seed",
        "overlap_share",
        "attention_share",
        "is_imported",
        "created_by",
        "created_at",
    ]
    inlines = [MembershipInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="Campaign page")
    def page(self, campaign: Campaign) -> SafeString:
        return format_html('<a href="{}">progress and agreement</a>', campaign.get_absolute_url())


@admin.register(Item)
class ItemAdmin(ReadOnlyAdmin):
    list_display = ["pk", "campaign", "text", "system_a", "system_b", "attention_aspect"]
    list_filter = ["campaign"]
    list_select_related = ["campaign", "text__dataset", "system_a", "system_b"]


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = [
        "public_id",
        "item",
        "annotator",
        "status",
        "a_on_left",
        "queue_position",
        "seconds_spent",
        "version",
    ]
    list_filter = ["status", "item__campaign"]
    list_select_related = ["item__campaign", "item__text__dataset", "item__system_a", "item__system_b", "annotator"]
    search_fields = ["public_id", "annotator__username"]


@admin.register(Judgement)
class JudgementAdmin(ReadOnlyAdmin):
    list_display = ["pk", "assignment", "aspect", "label", "updated_at"]
    list_filter = ["aspect", "label", "assignment__item__campaign"]
    list_select_related = [
        "assignment__item__campaign",
        "assignment__item__text__dataset",
        "assignment__item__system_a",
        "assignment__item__system_b",
        "assignment__annotator",
    ]


@admin.register(PracticeItem)
class PracticeItemAdmin(ReadOnlyAdmin):
    """Practice rounds are uploaded as a whole on the quality page (docs/formats.md)."""

    list_display = ["campaign", "position", "text", "reference"]
    list_filter = ["campaign"]
    list_select_related = ["campaign"]


@admin.register(TripleCheck)
class TripleCheckAdmin(admin.ModelAdmin):
    """Triple checks are created on their page (which samples triples); here they open or close."""

    list_display = ("name", "dataset", "judge_setting", "per_stratum", "is_open", "created_at")
    fields = ("name", "is_open")

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(TripleCheckItem)
class TripleCheckItemAdmin(admin.ModelAdmin):
    """A sampled triple, read only: staff settle its gold label on the campaign's adjudication page,
    which records who and when (``TripleAdjudication``)."""

    list_display = ("pk", "campaign", "triple", "stratum_supported", "adjudication")
    list_filter = ("campaign",)
    list_select_related = ("campaign", "adjudication")
    fields = ("triple", "weight", "stratum_supported", "adjudication")
    readonly_fields = fields

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
