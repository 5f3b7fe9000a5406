from django.urls import path

from scoring import api, views, views_runs

urlpatterns = [
    path("", views.home, name="home"),
    path("datasets/<str:name>/", views.dataset_detail, name="dataset"),
    path("datasets/<str:name>/texts/<int:pk>/", views.text_detail, name="text"),
    path("datasets/<str:name>/runs/new/", views_runs.run_new, name="run-new"),
    path("runs/<int:pk>/", views_runs.run_detail, name="run"),
    path("runs/<int:pk>/progress.json", views_runs.run_progress, name="run-progress"),
    path("runs/<int:pk>/cancel/", views_runs.run_cancel, name="run-cancel"),
    path("runs/<int:pk>/resume/", views_runs.run_resume, name="run-resume"),
    path("upload/", views.upload, name="upload"),
    path("uploads/<int:pk>/progress.json", views.upload_progress, name="upload-progress"),
    path("api/datasets/", api.datasets, name="api-datasets"),
    path("api/datasets/<str:name>/outputs/", api.dataset_outputs, name="api-dataset-outputs"),
    path("api/uploads/<int:pk>/", api.upload_status, name="api-upload"),
]
