from django.urls import path

from accounts.views import invites, staff, tokens

app_name = "accounts"

urlpatterns = [
    path("", staff.account_list, name="list"),
    path("new/", staff.account_create, name="create"),
    path("<int:pk>/role/", staff.account_role, name="role"),
    path("<int:pk>/active/", staff.account_active, name="active"),
    path("<int:pk>/invite/", staff.account_invite, name="invite_new"),
    path("<int:pk>/invite/revoke/", staff.invite_revoke, name="invite_revoke"),
    path("<int:pk>/reset-link/", staff.reset_link, name="reset_link"),
    path("invite/<str:key>/", invites.accept_invite, name="invite"),
    path("tokens/", tokens.token_list, name="tokens"),
    path("tokens/<int:pk>/revoke/", tokens.token_revoke, name="token_revoke"),
]
