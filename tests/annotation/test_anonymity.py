"""No page or JSON an annotator can reach names a system or carries a system, item or text id.

The test signs in as an annotator, judges items through the same requests the page makes,
then crawls every link reachable from the annotator home and the site home, and checks all
collected bodies for the systems' names and for id-bearing fields.
"""

import re
from collections import deque
from urllib.parse import urldefrag, urlsplit

import pytest
from django.urls import reverse

from annotation.models import ASPECTS
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, make_annotation_setup, make_user

pytestmark = pytest.mark.django_db

LINK = re.compile(r'(?:href|action)="([^"]+)"')
# Field, attribute or key names that would carry a system, item or text id.
ID_FIELDS = re.compile(
    r"system[_-]?(?:a|b|id|pk)\b|[\"']system[\"']\s*:|data-system|name=\"system|(?:item|text)[_-](?:id|pk)\b",
    re.IGNORECASE,
)
DATA_ATTRIBUTE = re.compile(r"\b(data-[a-z-]+)")
INPUT_NAME = re.compile(r'<input[^>]*\bname="([^"]+)"')
# data-gold lists the numbers, in the page's gold list, of the gold triples a triple nearly equals.
ALLOWED_DATA_ATTRIBUTES = {
    "data-public-id",
    "data-stage",
    "data-aspect",
    "data-show-shortcuts",
    "data-aspect-step",
    "data-gold",
    "data-continue-url",
    "data-show-guidelines",
    "data-draft-key",
    "data-next-url",
}
ALLOWED_INPUTS = {"csrfmiddlewaretoken", "version", "opened_at", "seconds", "return_to", "review_page", *ASPECTS}
# The API's description is one document for everyone: it names fields ("system" of an upload),
# never a system of a campaign.
NOT_CRAWLED = ("/static/", "/accounts/logout/", "/api/openapi.json")


@pytest.fixture
def annotator():
    return make_user("anonymous-reader")


@pytest.fixture
def setup(annotator):
    return make_annotation_setup([annotator, make_user("second-reader")], overlap_share=1.0)


def crawl(client, start_urls):
    """GET every same-site link reachable from ``start_urls``; return {url: (status, body)}."""
    seen, queue, bodies = set(), deque(start_urls), {}
    while queue:
        url = urldefrag(queue.popleft()).url
        if url in seen or not url.startswith("/") or url.startswith(NOT_CRAWLED):
            continue
        seen.add(url)
        response = client.get(url)
        body = response.content.decode() if not response.streaming else b"".join(response.streaming_content).decode()
        bodies[url] = (response.status_code, body)
        if response.status_code == 302:
            queue.append(response.url)
        queue.extend(LINK.findall(body))
    return bodies


def judge_through_the_page(client, setup, annotator):
    """Save, conflict, complete and skip, as the script would; return every JSON and page body."""
    bodies = []
    first, second, third = setup.assignments(annotator)
    for assignment in (first, second):
        url = reverse("annotation:annotate_item", args=[assignment.public_id])
        for labels, version in ((FIRST_FOUR_LEFT, 0), ({"ts": "right"}, 0), ({"cs": "tie"}, 1)):
            response = client.post(url, {"version": version, "seconds": "3", **labels}, HTTP_ACCEPT="application/json")
            bodies.append(response.content.decode())
        bodies.append(client.post(url, {"version": 2, "cs": "left"}).content.decode())
        bodies.append(client.get(url).content.decode())
    bodies.append(
        client.post(reverse("annotation:annotate_skip", args=[third.public_id]), follow=True).content.decode()
    )
    return bodies


def test_no_reachable_page_or_response_reveals_systems(client, setup, annotator):
    client.force_login(annotator)
    saved = judge_through_the_page(client, setup, annotator)
    pages = crawl(
        client, [reverse("annotation:annotate_home"), reverse("annotation:annotate_review"), reverse("scoring:home")]
    )

    item_pages = [url for url in pages if re.fullmatch(r"/annotate/[0-9a-f-]{36}/", url)]
    assert len(item_pages) == 3, "the crawl reaches every item of the annotator"
    assert reverse("annotation:annotate_guidelines") in pages

    system_names = [system.name.lower() for system in setup.systems]
    for where, body in [*((url, body) for url, (_, body) in pages.items()), *enumerate(saved)]:
        lowered = body.lower()
        assert not any(name in lowered for name in system_names), where
        assert not ID_FIELDS.search(body), where


def test_item_pages_carry_only_the_public_id(client, setup, annotator):
    client.force_login(annotator)
    for assignment in setup.assignments(annotator):
        body = client.get(reverse("annotation:annotate_item", args=[assignment.public_id])).content.decode()
        assert set(DATA_ATTRIBUTE.findall(body)) <= ALLOWED_DATA_ATTRIBUTES
        assert set(INPUT_NAME.findall(body)) <= ALLOWED_INPUTS
        item = assignment.item
        for link in LINK.findall(body):
            path = urlsplit(link).path
            assert not re.search(rf"/({item.pk}|{item.text_id}|{item.system_a_id}|{item.system_b_id})/", path), link
