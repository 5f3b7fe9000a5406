from django.urls import path

from leaderboard import views

urlpatterns = [
    path("", views.index, name="leaderboard_index"),
    path("<str:name>/", views.dataset_page, name="leaderboard"),
    path("<str:name>/sections.json", views.dataset_sections, name="leaderboard_sections"),
    path("<str:name>/<slug:table>.csv", views.dataset_table, name="leaderboard_csv"),
    path(
        "<str:name>/<slug:table>.parquet", views.dataset_table, {"file_format": "parquet"}, name="leaderboard_parquet"
    ),
]
