from django.urls import path

from scoring import api, views

urlpatterns = [
    path("", views.home, name="home"),
    path("datasets/<str:name>/", views.dataset_detail, name="dataset"),
    path("datasets/<str:name>/texts/<int:pk>/", views.text_detail, name="text"),
    path("upload/", views.upload, name="upload"),
    path("api/datasets/", api.datasets, name="api-datasets"),
    path("api/datasets/<str:name>/outputs/", api.dataset_outputs, name="api-dataset-outputs"),
]
