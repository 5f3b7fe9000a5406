"""Where signing in leads: annotators to their campaigns, staff and researchers to the datasets."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from tests.annotation.annotator_fixtures import make_user

pytestmark = pytest.mark.django_db


def landing(client, user):
    client.force_login(user)
    return client.get(reverse("annotation:after_sign_in")).url


def test_sign_in_leads_to_it(client):
    make_user("ann")
    response = client.post(reverse("login"), {"username": "ann", "password": "ann-pass-123"})
    assert response.url == reverse("annotation:after_sign_in")


def test_an_annotator_lands_on_their_campaigns(client):
    assert landing(client, make_user("ann")) == reverse("annotation:annotate_home")


def test_staff_land_on_the_datasets(client):
    assert landing(client, make_user("stef", is_staff=True)) == reverse("scoring:home")


def test_a_researcher_who_may_read_outputs_lands_on_the_datasets(client):
    researcher = make_user("res")
    researcher.user_permissions.add(Permission.objects.get(codename="view_output", content_type__app_label="scoring"))
    assert landing(client, researcher) == reverse("scoring:home")
