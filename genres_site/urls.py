from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from genres_site.health import healthz
from genres_site.openapi import openapi_json

admin.site.site_header = admin.site.site_title = "GENRES Arena administration"

urlpatterns = [
    # Browsers ask for /favicon.ico on every page, the admin's included.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("healthz", healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/rq/", include("django_rq.urls")),
    path("admin/", admin.site.urls),
    path("", include("leaderboard.urls")),
    path("api/openapi.json", openapi_json, name="api_openapi"),
    path("", include("scoring.urls")),
    path("", include("annotation.urls")),
]

handler400 = "genres_site.error_views.bad_request"
handler403 = "genres_site.error_views.permission_denied"
handler404 = "genres_site.error_views.page_not_found"
handler500 = "genres_site.error_views.server_error"
