"""How the new-campaign form lists the accounts that may annotate."""

import pytest
from django.contrib.auth import get_user_model

from annotation.forms import CampaignCreateForm

pytestmark = pytest.mark.django_db


def test_accounts_that_cannot_sign_in_are_marked_and_inactive_ones_left_out():
    users = get_user_model().objects
    users.create_user("alice", password="a-long-password-1")
    rater = users.create_user("rater-imported")
    rater.set_unusable_password()  # what import_judgements does for an unknown annotator name
    rater.save()
    users.create_user("gone", password="a-long-password-2", is_active=False)

    choices = [label for _, label in CampaignCreateForm().fields["annotators"].choices]

    assert choices == ["alice", "rater-imported (cannot sign in)"]
