from django.urls import path

from leaderboard import views

app_name = "leaderboard"

# Included at the site's root: the pages live under leaderboard/, the JSON beside the other APIs.
urlpatterns = [
    path("leaderboard/", views.index, name="index"),
    path("leaderboard/<str:name>/", views.dataset_page, name="dataset"),
    path("leaderboard/<str:name>/sections.json", views.dataset_sections, name="sections"),
    path("leaderboard/<str:name>/<slug:table>.csv", views.dataset_table, name="csv"),
    path(
        "leaderboard/<str:name>/<slug:table>.parquet",
        views.dataset_table,
        {"file_format": "parquet"},
        name="parquet",
    ),
    path("api/datasets/<str:name>/leaderboard.json", views.dataset_json, name="api_dataset"),
    path("api/datasets/<str:name>/ratings/", views.dataset_ratings, name="api_ratings"),
]
