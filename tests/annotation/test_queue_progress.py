"""Progress in pairs and judgements: every save shows, the same on the home and the item page."""

import re

import pytest
from django.urls import reverse

from annotation.services.judgements import save_judgements
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT

pytestmark = pytest.mark.django_db


def progress_shown(body):
    """The figures of the progress count (annotation/queue_progress.html) in a page, as one string."""
    count = re.search(r'<span class="queue-progress".*?<span class="count">(.*?)</span>', body, re.S)
    return re.sub(r"</?strong>", "", count.group(1))


def test_partial_saves_count_in_judgements_and_a_pair_counts_with_its_four_first_aspects(signed_in, setup, annotator):
    first, second, third = setup.assignments(annotator)
    save_judgements(first, FIRST_FOUR_LEFT, expected_version=0, seconds=1)
    save_judgements(second, {"ts": "left", "fs": "tie"}, expected_version=0, seconds=1)
    home = signed_in.get(reverse("annotation:annotate_home")).content.decode()
    item = signed_in.get(reverse("annotation:annotate_item", args=[third.public_id])).content.decode()
    # One pair has its four first aspects; six aspects are judged in all, of 3 pairs × 5.
    assert progress_shown(home) == progress_shown(item) == "1 of 3 pairs, 6 of 15 judgements"
    assert 'style="width: 40%"' in home and 'style="width: 40%"' in item
