"""One annotator with a campaign queue, signed in: what most annotator-page tests start from; and the
adjudication tests' campaign whose two annotators disagree."""

import pytest

from tests.annotation.adjudication_fixtures import make_disputed_campaign, make_people
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user
from tests.annotation.triple_check_fixtures import make_triple_check
from tests.conftest import shared_database_rows


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


@pytest.fixture(scope="module")
def triple_check(django_db_setup, django_db_blocker):
    """A triple-check campaign with two judges' verdicts (``make_triple_check``), made once per module."""
    with shared_database_rows(django_db_blocker):
        yield make_triple_check()
