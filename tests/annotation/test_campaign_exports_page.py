"""/campaigns/judgements/: the page from which researchers download closed campaigns' judgements
(staff: every campaign's), linked as "Judgements" in the navigation of whoever may read them."""

import pytest
from django.urls import reverse

from annotation.views.exports import NOT_A_READER

pytestmark = pytest.mark.django_db
URL = "/campaigns/judgements/"


def test_the_route_is_the_pages(client):
    assert reverse("annotation:campaign_exports") == URL


def test_the_signed_out_go_to_sign_in(client, disputed_campaign):
    response = client.get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_annotators_get_403_and_no_link(client, people, disputed_campaign):
    client.force_login(people[0][0])
    response = client.get(URL)
    assert response.status_code == 403 and NOT_A_READER in response.content.decode()
    assert URL not in client.get(reverse("annotation:annotate_home")).content.decode()


def test_researchers_find_closed_campaigns_downloads_from_the_navigation(client, people, disputed_campaign):
    client.force_login(people[1])
    assert f'href="{URL}"' in client.get("/").content.decode()
    assert disputed_campaign.name not in client.get(URL).content.decode()
    disputed_campaign.is_open = False
    disputed_campaign.save(update_fields=["is_open"])
    page = client.get(URL).content.decode()
    assert disputed_campaign.name in page
    for suffix in ("csv", "jsonl", "parquet"):
        link = reverse(f"annotation:campaign_{suffix}", args=[disputed_campaign.pk])
        assert f'href="{link}"' in page and client.get(link).status_code == 200
    assert f'href="{disputed_campaign.get_absolute_url()}"' not in page  # the campaign page is staff's


def test_staff_see_every_campaign_with_a_link_to_its_page(client, people, disputed_campaign):
    client.force_login(people[2])
    page = client.get(URL).content.decode()
    assert f'href="{disputed_campaign.get_absolute_url()}"' in page and ">open<" in page
