"""When leaderboards are public, the new-campaign form warns that anyone signed out can read them."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("public", [False, True])
def test_the_form_warns_only_when_leaderboards_are_public(admin_client, settings, public):
    settings.GENRES_PUBLIC_LEADERBOARD = public
    html = admin_client.get(reverse("annotation:campaign_create")).content.decode()
    assert ('id="public-leaderboards"' in html) is public
    if public:
        assert "anyone signed out can read them" in html
