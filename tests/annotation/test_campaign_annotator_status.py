"""The campaign page's status of each annotator: active, left out of ratings, or removed."""

import re

import pytest

from annotation.services.campaigns import remove_annotator
from annotation.services.quality_control import set_exclusion

pytestmark = pytest.mark.django_db


def status_of(page, name):
    row = re.search(rf"<td>{name}</td>.*?</tr>", page, re.DOTALL).group(0)
    return re.findall(r'class="badge[^"]*">([^<]+)<', row)


def test_a_left_out_annotator_is_shown_left_out_not_active(client, people, disputed_campaign):
    campaign = disputed_campaign
    (first, _second), _, staff = people
    set_exclusion(campaign, first, excluded=True, changed_by=staff)
    client.force_login(staff)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert status_of(page, "ann-one") == ["left out"]
    assert status_of(page, "ann-two") == ["active"]
    remove_annotator(campaign, first)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert status_of(page, "ann-one") == ["removed", "left out"]
