from django.urls import path

from annotation.triple_checks import adjudication_views as triple_adjudication
from annotation.triple_checks import practice_views as triple_practice
from annotation.triple_checks import views as triple_checks
from annotation.views import adjudication, annotate, api, campaigns, exports, guidelines, practice, quality

app_name = "annotation"

urlpatterns = [
    # Campaign pages (staff only).
    path("campaigns/", campaigns.campaign_list, name="campaign_list"),
    path("campaigns/new/", campaigns.campaign_create, name="campaign_create"),
    path("campaigns/<int:pk>/", campaigns.campaign_detail, name="campaign_detail"),
    path("campaigns/<int:pk>/annotators/", campaigns.campaign_annotators, name="campaign_annotators"),
    path("campaigns/<int:pk>/open/", campaigns.campaign_toggle_open, name="campaign_toggle_open"),
    # Downloads: staff, and researchers once the campaign is closed; by session or API token.
    path("campaigns/judgements/", exports.campaign_exports, name="campaign_exports"),
    *(
        path(
            f"campaigns/<int:pk>/judgements.{suffix}",
            exports.campaign_export,
            {"file_format": suffix},
            name=f"campaign_{suffix}",
        )
        for suffix in exports.FORMATS
    ),
    *(
        path(
            f"api/campaigns/<int:pk>/judgements.{suffix}",
            exports.campaign_export_api,
            {"file_format": suffix},
            name=f"api_campaign_{suffix}",
        )
        for suffix in exports.FORMATS
    ),
    # The study's JSON API (by API token): campaigns, their progress, judgements and agreement.
    path("api/campaigns/", api.campaigns, name="api_campaigns"),
    path("api/campaigns/<int:pk>/", api.campaign, name="api_campaign"),
    path("api/campaigns/<int:pk>/agreement/", api.campaign_agreement, name="api_campaign_agreement"),
    path("api/judgements/", api.judgements, name="api_judgements"),
    path("campaigns/<int:pk>/quality/", quality.campaign_quality, name="campaign_quality"),
    path("campaigns/<int:pk>/quality/exclusion/", quality.campaign_exclusion, name="campaign_exclusion"),
    path("campaigns/<int:pk>/practice/", quality.campaign_practice_upload, name="campaign_practice_upload"),
    path("campaigns/<int:pk>/adjudication/", adjudication.adjudication_list, name="adjudication_list"),
    path("campaigns/<int:pk>/adjudication/<int:item_pk>/", adjudication.adjudication_item, name="adjudication_item"),
    path(
        "campaigns/<int:pk>/adjudication/<int:item_pk>/resolve/",
        adjudication.adjudication_resolve,
        name="adjudication_resolve",
    ),
    path("triple-checks/", triple_checks.triple_check_list, name="triple_check_list"),
    path("triple-checks/<int:pk>/", triple_checks.triple_check, name="triple_check"),
    path("triple-checks/<int:pk>/annotators/", triple_checks.triple_check_annotators, name="triple_check_annotators"),
    path("triple-checks/<int:pk>/open/", triple_checks.triple_check_toggle_open, name="triple_check_toggle_open"),
    path(
        "triple-checks/<int:pk>/adjudication/",
        triple_adjudication.triple_adjudication_list,
        name="triple_check_adjudication",
    ),
    path(
        "triple-checks/<int:pk>/adjudication/<int:item_pk>/",
        triple_adjudication.triple_adjudication_item,
        name="triple_adjudication_item",
    ),
    path("triple-checks/<int:pk>/labels.csv", triple_checks.triple_check_labels, name="triple_check_labels"),
    path("campaigns/<int:pk>/rating-labels/", adjudication.campaign_rating_labels, name="campaign_rating_labels"),
    # Annotator pages (the annotator UI): add their routes below this line.
    path("signed-in/", annotate.after_sign_in, name="after_sign_in"),
    path("annotate/", annotate.annotator_home, name="annotate_home"),
    path("annotate/guidelines/", guidelines.annotate_guidelines, name="annotate_guidelines"),
    path("annotate/review/", annotate.annotate_review, name="annotate_review"),
    path("annotate/campaigns/<int:campaign_id>/next/", annotate.annotate_continue, name="annotate_continue"),
    path("annotate/campaigns/<int:campaign_id>/practice/", practice.practice, name="annotate_practice"),
    path(
        "annotate/campaigns/<int:campaign_id>/practice/<int:number>/",
        practice.practice_feedback,
        name="annotate_practice_feedback",
    ),
    path(
        "annotate/campaigns/<int:campaign_id>/practice/retake/",
        practice.practice_retake,
        name="annotate_practice_retake",
    ),
    path("annotate/triple-checks/<int:campaign_id>/next/", triple_checks.triple_next, name="triple_next"),
    path("annotate/triple-checks/<int:campaign_id>/practice/", triple_practice.triple_practice, name="triple_practice"),
    path(
        "annotate/triple-checks/<int:campaign_id>/practice/<int:number>/",
        triple_practice.triple_practice_feedback,
        name="triple_practice_feedback",
    ),
    path(
        "annotate/triple-checks/<int:campaign_id>/practice/retake/",
        triple_practice.triple_practice_retake,
        name="triple_practice_retake",
    ),
    path("annotate/triples/<uuid:public_id>/", triple_checks.triple_label, name="triple_label"),
    path("annotate/triples/<uuid:public_id>/skip/", triple_checks.triple_skip, name="triple_skip"),
    path("annotate/<uuid:public_id>/", annotate.annotate_item, name="annotate_item"),
    path("annotate/<uuid:public_id>/skip/", annotate.annotate_skip, name="annotate_skip"),
    path("annotate/<uuid:public_id>/previous/", annotate.annotate_previous, name="annotate_previous"),
]
