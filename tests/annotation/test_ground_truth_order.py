"""The Ground-truth ordering rule over a whole campaign, walked through the annotator's pages.

Four systems, Ground truth among them, four texts, two annotators sharing half the texts, in both
pair orders (the queue, and adaptive: least certain pairs first). Each
annotator follows their queue as the page's script does (the save's ``next_url``, or the
plain form's redirect), skips a text now and then, tries to judge completeness early and to
change a first aspect after the gold was shown. Whatever they do, no page or JSON shows a text's
gold before every pair of that text in their queue has its four first aspects, and every
assignment ends done exactly once.
"""

import random
import re
from collections import Counter

import pytest
from django.urls import reverse

from annotation.models import ASPECTS, FIRST_ASPECTS, Assignment, Judgement
from annotation.services.campaigns import create_campaign
from scoring.models import System
from tests.annotation.campaign_factories import make_annotators
from tests.factories import make_dataset

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}
GOLD_CARD = 'class="reading-card gold-card"'
STAGE = re.compile(r'data-stage="(\w+)"')
SIDES = ("left", "tie", "right")


def gold_marker(position):
    return f"gold-only-fact-{position}"


@pytest.fixture(params=["queue", "adaptive"])
def campaign(request):
    texts = [
        {
            "content": f"Text {position}: Ada Lovelace worked with Charles Babbage.",
            # The marker is in the gold alone: a body holding it shows the gold (as the reference
            # card, or as the Ground-truth side of a pair, which the checks tell apart).
            "gold": [["Ada Lovelace", "worked with", "Charles Babbage"], ["Ada", "knew", gold_marker(position)]],
        }
        for position in range(4)
    ]
    dataset, systems = make_dataset(
        "gt-order", texts, outputs=lambda position, system: [["Ada", system.name, f"fact-{position}"]]
    )
    return create_campaign(
        name="gt-order",
        dataset=dataset,
        systems=[*systems, System.ground_truth()],
        annotators=make_annotators(2, prefix="walker"),
        seed=23,
        overlap_share=0.5,
        sample_size=4,
        pair_order=request.param,
    ).campaign


def text_of(public_id):
    return Assignment.objects.values_list("item__text_id", flat=True).get(public_id=public_id)


def pairs_lacking_first_aspects(annotator, campaign, text_id):
    pairs = Assignment.objects.filter(annotator=annotator, item__campaign=campaign, item__text_id=text_id)
    return [
        pair.pk for pair in pairs if not set(FIRST_ASPECTS) <= set(pair.judgements.values_list("aspect", flat=True))
    ]


def has_ground_truth(assignment):
    return assignment.item.system_a.is_ground_truth or assignment.item.system_b.is_ground_truth


class Walker:
    """One annotator going through their queue with the test client."""

    def __init__(self, client, annotator, campaign, seed):
        self.client, self.annotator, self.campaign = client, annotator, campaign
        self.rng = random.Random(seed)
        self.url = reverse("annotation:annotate_continue", args=[campaign.pk])
        self.finished = Counter()  # public id -> saves that reported the assignment done
        self.skips = 0
        self.pages = Counter()  # stage -> pages seen
        self.refused_early = self.refused_locked = 0

    def check(self, body, public_id):
        """The invariant: a body showing the gold of a text comes only once that text is ready."""
        assignment = Assignment.objects.select_related("item__system_a", "item__system_b").get(public_id=public_id)
        text_id = assignment.item.text_id
        lacking = pairs_lacking_first_aspects(self.annotator, self.campaign, text_id)
        marker = gold_marker(assignment.item.text.position)
        if GOLD_CARD in body or 'name="cs"' in body:
            assert not lacking, f"gold shown while pairs {lacking} of the text lack a first aspect"
        if marker in body and lacking:
            # Before the reveal, the gold may only be on the page as the Ground-truth side.
            assert has_ground_truth(assignment) and body.count(marker) == 1, "gold leaked before the reveal"

    def get(self, url):
        response = self.client.get(url)
        while response.status_code == 302 and response.url != reverse("annotation:annotate_home"):
            response = self.client.get(response.url)
        return response

    def step(self):
        """Judge (or skip) what the queue gives next; False once the queue is empty."""
        response = self.get(self.url)
        if response.status_code == 302:
            return False
        assert response.status_code == 200
        public_id = response.wsgi_request.path.strip("/").split("/")[-1]
        body = response.content.decode()
        self.check(body, public_id)
        stage = STAGE.search(body).group(1)
        self.pages[stage] += 1
        assert stage != "waiting", "the queue never offers a pair that waits for the others"
        self.peek_at_the_other_pairs(public_id)
        item_url = reverse("annotation:annotate_item", args=[public_id])
        version = int(re.search(r'name="version" value="(\d+)"', body).group(1))

        if stage == "first" and self.rng.random() < 0.12:
            self.skips += 1
            skipped = self.client.post(reverse("annotation:annotate_skip", args=[public_id]))
            self.url = skipped.url
            return True
        if stage == "first":
            early = self.client.post(item_url, {"version": version, "cs": "left", "ts": "left"}, **JSON)
            assert early.status_code == 400 and "Completeness is judged last" in early.json()["message"]
            self.refused_early += 1
            labels = {aspect: self.rng.choice(SIDES) for aspect in FIRST_ASPECTS}
        else:
            changed = self.client.post(item_url, {"version": version, "ts": self.flipped(public_id, "ts")}, **JSON)
            assert changed.status_code == 400 and "can no longer change" in changed.json()["message"]
            self.refused_locked += 1
            labels = {"cs": self.rng.choice(SIDES)}
        self.save(item_url, public_id, labels, version)
        return True

    def flipped(self, public_id, aspect):
        assignment = Assignment.objects.get(public_id=public_id)
        stored = assignment.canonical_to_shown(assignment.judgements.get(aspect=aspect).label)
        return next(side for side in SIDES if side != stored)

    def save(self, item_url, public_id, labels, version):
        data = {"version": version, "seconds": "2", **labels}
        if self.rng.random() < 0.3:  # the plain form, without the script
            response = self.client.post(item_url, data)
            assert response.status_code == 302
            self.url = response.url
            if Assignment.objects.get(public_id=public_id).status == Assignment.Status.DONE and "cs" in labels:
                self.finished[public_id] += 1
            return
        response = self.client.post(item_url, data, **JSON)
        assert response.status_code == 200, response.content
        body = response.json()
        self.check(response.content.decode(), public_id)
        assert body["next_url"], "a finished stage moves on"
        if body["is_done"]:
            self.finished[public_id] += 1
        self.url = body["next_url"]

    def peek_at_the_other_pairs(self, public_id):
        """Open another pair of the same text by its URL, as an annotator could from the review list."""
        others = Assignment.objects.filter(
            annotator=self.annotator, item__campaign=self.campaign, item__text_id=text_of(public_id)
        ).exclude(public_id=public_id)
        other = self.rng.choice(list(others))
        response = self.client.get(reverse("annotation:annotate_item", args=[other.public_id]))
        assert response.status_code == 200
        self.check(response.content.decode(), str(other.public_id))


@pytest.mark.slow
def test_no_gold_before_every_pair_of_the_text_has_its_first_four(client, campaign):
    annotators = [membership.annotator for membership in campaign.memberships.all()]
    walkers = [Walker(client, annotator, campaign, seed) for seed, annotator in enumerate(annotators)]
    active = list(walkers)
    steps = 0
    # The two annotators take turns, so the texts they share are judged side by side.
    while active:
        for walker in list(active):
            client.force_login(walker.annotator)
            if not walker.step():
                active.remove(walker)
        steps += 1
        assert steps < 500, "the walk does not end"

    assignments = Assignment.objects.filter(item__campaign=campaign)
    assert assignments.count() == 4 * 6 + 2 * 6  # four texts of six pairs, two of them twice
    assert not assignments.exclude(status=Assignment.Status.DONE).exists()
    assert all(Judgement.objects.filter(assignment=assignment).count() == len(ASPECTS) for assignment in assignments)
    for walker in walkers:
        assert all(count == 1 for count in walker.finished.values()), "an item reported done twice"
        assert len(walker.finished) == assignments.filter(annotator=walker.annotator).count()
        assert walker.skips > 0 and walker.pages["completeness"] > 0 and walker.pages["first"] > 0
        assert walker.refused_early > 0 and walker.refused_locked > 0
