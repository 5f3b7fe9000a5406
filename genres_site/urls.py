from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView

from accounts.views.passwords import PasswordChangeView, PasswordResetConfirmView
from genres_site.health import healthz
from genres_site.openapi import openapi_json

admin.site.site_header = admin.site.site_title = "GENRES Arena administration"

urlpatterns = [
    # Browsers ask for /favicon.ico on every page, the admin's included. The file's name holds a
    # hash of its content once collected: looked up at each request (the manifest may not exist
    # yet when the URLconf loads, in migrate), and not a permanent redirect, as the name changes.
    path("favicon.ico", RedirectView.as_view(url=lazy(static, str)("favicon.svg"))),
    path("healthz", healthz, name="healthz"),
    # django.contrib.auth.urls, with the two views that also end a forced password change.
    path("accounts/password_change/", PasswordChangeView.as_view(), name="password_change"),
    path("accounts/reset/<uidb64>/<token>/", PasswordResetConfirmView.as_view(), name="password_reset_confirm"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("accounts/", include("accounts.urls")),
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
