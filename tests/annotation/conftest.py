"""One annotator with a campaign queue, signed in: what most annotator-page tests start from; and the
adjudication tests' campaign whose two annotators disagree."""

import pytest

from tests.annotation.adjudication_fixtures import make_disputed_campaign, make_people
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user


@pytest.fixture
def annotator():
    return make_user("reader")


@pytest.fixture
def setup(annotator):
    return make_annotation_setup([annotator])


@pytest.fixture
def signed_in(client, annotator):
    client.force_login(annotator)
    return client


@pytest.fixture
def people():
    """(annotators, researcher, staff) of the adjudication tests (``adjudication_fixtures``)."""
    return make_people()


@pytest.fixture
def disputed_campaign(people):
    """A campaign whose two annotators disagree (``adjudication_fixtures``)."""
    return make_disputed_campaign(people[0]).campaign
