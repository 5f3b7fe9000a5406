"""The quality page's annotator × annotator matrix and per-aspect Fleiss' κ and Krippendorff's α."""

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_staff_see_the_matrix_of_the_two_annotators_and_the_aspect_figures(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    page = client.get(reverse("annotation:campaign_quality", args=[campaign.pk])).content.decode()
    matrix = page[page.index('id="agreement-matrix"') : page.index('id="aspect-reliability"')]
    # Twelve shared judgements (three items × four aspects): ts 0, us ½, fs 1, gs 1 → (0 + 1.5 + 3 + 3) / 12.
    assert re.search(r'<th scope="row">ann-one</th>\s*<td class="num"><span class="muted">–</span></td>', matrix)
    assert "0.63<br>" in matrix and "· 12" in matrix
    reliability = page[page.index('id="aspect-reliability"') :]
    assert "Fleiss" in page and "Topical similarity" in reliability
    # Topical similarity: every item a against b. Accuracy 0; Cohen's κ: observed 0, chance 0 (one
    # always says a, the other b) → 0; Fleiss: observed 0, chance ½ (half the labels a) → −1.
    cells = r'\s*<td class="num">'
    assert re.search(rf"Topical similarity</td>{cells}0\.000</td>{cells}0\.000</td>{cells}-1\.000</td>", reliability)


@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_only_staff_see_it(client, people, disputed_campaign, role):
    campaign = disputed_campaign
    client.force_login(people[0][0] if role == "annotator" else people[1])
    assert client.get(reverse("annotation:campaign_quality", args=[campaign.pk])).status_code == 403
    client.logout()
    response = client.get(reverse("annotation:campaign_quality", args=[campaign.pk]))
    assert response.status_code == 302 and reverse("login") in response.url
