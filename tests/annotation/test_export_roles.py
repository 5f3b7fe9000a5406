"""Who downloads a campaign's exports, in the page and by API token: staff always, researchers once
the campaign is closed, annotators never, the signed-out not at all (sign-in page or 401)."""

import pytest
from django.urls import reverse

from annotation.views.exports import FORMATS, NOT_A_READER, STILL_OPEN
from scoring.models import ApiToken

pytestmark = pytest.mark.django_db


@pytest.fixture(params=list(FORMATS))
def file_format(request):
    return request.param


def page_url(campaign, file_format):
    return reverse(f"annotation:campaign_{file_format}", args=[campaign.pk])


def api_url(campaign, file_format):
    return reverse(f"annotation:api_campaign_{file_format}", args=[campaign.pk])


def closed(campaign):
    campaign.is_open = False
    campaign.save(update_fields=["is_open"])
    return campaign


def by_token(client, user, url):
    key = ApiToken.issue(user)[1]
    return client.get(url, HTTP_AUTHORIZATION=f"Token {key}")


def signed_in(client, user, url):
    client.force_login(user)
    return client.get(url)


def test_the_signed_out_go_to_sign_in_or_get_401(client, disputed_campaign, file_format):
    closed(disputed_campaign)
    response = client.get(page_url(disputed_campaign, file_format))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    response = client.get(api_url(disputed_campaign, file_format))
    assert response.status_code == 401 and "error" in response.json()


@pytest.mark.parametrize("fetch", [signed_in, by_token])
def test_annotators_get_403(client, people, disputed_campaign, file_format, fetch):
    closed(disputed_campaign)
    url = (page_url if fetch is signed_in else api_url)(disputed_campaign, file_format)
    response = fetch(client, people[0][0], url)
    assert response.status_code == 403
    assert NOT_A_READER in response.content.decode()


@pytest.mark.parametrize("fetch", [signed_in, by_token])
def test_researchers_download_a_closed_campaign(client, people, disputed_campaign, file_format, fetch):
    closed(disputed_campaign)
    url = (page_url if fetch is signed_in else api_url)(disputed_campaign, file_format)
    response = fetch(client, people[1], url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith(FORMATS[file_format][1].partition(";")[0])
    assert b"".join(response.streaming_content)


@pytest.mark.parametrize("fetch", [signed_in, by_token])
def test_researchers_get_403_saying_why_while_the_campaign_is_open(
    client, people, disputed_campaign, file_format, fetch
):
    url = (page_url if fetch is signed_in else api_url)(disputed_campaign, file_format)
    response = fetch(client, people[1], url)
    assert response.status_code == 403
    assert STILL_OPEN.split(":")[0] in response.content.decode()


@pytest.mark.parametrize("fetch", [signed_in, by_token])
def test_staff_download_an_open_campaign_with_user_names(client, people, disputed_campaign, fetch):
    url = (page_url if fetch is signed_in else api_url)(disputed_campaign, "csv")
    response = fetch(client, people[2], url)
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    assert "ann-one" in body and "ann-two" in body and "annotator-1" not in body


def test_an_unknown_campaign_is_a_json_404_by_token(client, people):
    response = by_token(client, people[1], reverse("annotation:api_campaign_csv", args=[999]))
    assert response.status_code == 404 and response.json() == {"error": "No campaign 999."}


def test_another_method_is_a_json_405_by_token(client, people, disputed_campaign):
    key = ApiToken.issue(people[2])[1]
    response = client.post(api_url(disputed_campaign, "csv"), HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 405 and response["Allow"] == "GET"
