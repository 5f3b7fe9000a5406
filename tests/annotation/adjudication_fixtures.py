"""A campaign whose two annotators disagree, for the adjudication tests.

Both annotators hold all three items (overlap 100%). In canonical labels, the first says A on
the four first aspects; the second says B on topical similarity (opposite sides: margin 1), tie
on uniqueness (margin ½), and A on factualness and granularity (agreement).
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from annotation.models import Assignment, Item
from tests.annotation.annotator_fixtures import make_annotation_setup
from tests.annotation.campaign_factories import judge

FIRST = {"ts": "a", "us": "a", "fs": "a", "gs": "a"}
SECOND = {"ts": "b", "us": "tie", "fs": "a", "gs": "a"}


def make_people():
    """Two annotators, a researcher who may read outputs, and a staff member (no passwords: force_login)."""
    users = get_user_model().objects
    annotators = [users.create_user("ann-one"), users.create_user("ann-two")]
    researcher = users.create_user("researcher")
    researcher.user_permissions.add(Permission.objects.get(codename="view_output", content_type__app_label="scoring"))
    staff = users.create_user("boss", is_staff=True)
    return annotators, researcher, staff


def judge_canonical(annotator, campaign, labels, comment=None):
    """Judge every item of the annotator's queue with these canonical labels (mapped to the sides shown)."""
    for assignment in Assignment.objects.filter(annotator=annotator, item__campaign=campaign).order_by(
        "queue_position"
    ):
        judge(assignment, {aspect: assignment.canonical_to_shown(label) for aspect, label in labels.items()})
        if comment:
            Assignment.objects.filter(pk=assignment.pk).update(comment=comment)


def make_disputed_campaign(annotators):
    setup = make_annotation_setup(annotators, overlap_share=1.0)
    judge_canonical(annotators[0], setup.campaign, FIRST, comment="<i>A is plainly on topic</i>")
    judge_canonical(annotators[1], setup.campaign, SECOND)
    return setup


def make_attention_check(item):
    """An attention check on ``item``'s text: its system A against a worse copy (an empty one)."""
    return Item.objects.create(
        campaign=item.campaign,
        text=item.text,
        system_a=item.system_a,
        system_b=item.system_a,
        attention_worse="a",
        attention_aspect="us",
        attention_triples=[],
    )
