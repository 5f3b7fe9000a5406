from django.urls import path

from scoring.views import api, api_catalogue, generation, pages, runs

app_name = "scoring"

urlpatterns = [
    path("", pages.home, name="home"),
    path("datasets/<str:name>/", pages.dataset_detail, name="dataset"),
    path("datasets/<str:name>/texts/<int:pk>/", pages.text_detail, name="text"),
    # By name, so that a leaderboard built and cached without ids links to it; <path:> takes any name.
    path("datasets/<str:name>/systems/<path:system>/", pages.system_detail, name="system"),
    path("datasets/<str:name>/runs/new/", runs.run_new, name="run_new"),
    path("runs/<int:pk>/", runs.run_detail, name="run"),
    path("runs/<int:pk>/progress.json", runs.run_progress, name="run_progress"),
    path("runs/<int:pk>/cancel/", runs.run_cancel, name="run_cancel"),
    path("runs/<int:pk>/resume/", runs.run_resume, name="run_resume"),
    path("datasets/<str:name>/generate/", generation.generation_new, name="generation_new"),
    path("generations/<int:pk>/", generation.generation_detail, name="generation"),
    path("generations/<int:pk>/progress.json", generation.generation_progress, name="generation_progress"),
    path("generations/<int:pk>/cancel/", generation.generation_cancel, name="generation_cancel"),
    path("generations/<int:pk>/resume/", generation.generation_resume, name="generation_resume"),
    path("generations/<int:pk>/reparse/", generation.generation_reparse, name="generation_reparse"),
    path("upload/", pages.upload, name="upload"),
    path("uploads/<int:pk>/progress.json", pages.upload_progress, name="upload_progress"),
    path("api/datasets/", api_catalogue.datasets, name="api_datasets"),
    path("api/datasets/<str:name>/", api_catalogue.dataset_detail, name="api_dataset_detail"),
    path("api/datasets/<str:name>/systems/", api_catalogue.dataset_systems, name="api_dataset_systems"),
    path("api/datasets/<str:name>/runs/", api_catalogue.dataset_runs, name="api_dataset_runs"),
    path("api/runs/<int:pk>/", api_catalogue.run_status, name="api_run"),
    path("api/datasets/<str:name>/generations/", generation.api_generation_start, name="api_generations"),
    path("api/generations/<int:pk>/", generation.api_generation_status, name="api_generation"),
    path("api/datasets/<str:name>/outputs/", api.dataset_outputs, name="api_dataset_outputs"),
    path("api/uploads/<int:pk>/", api.upload_status, name="api_upload"),
]
