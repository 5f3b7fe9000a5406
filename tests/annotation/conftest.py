"""One annotator with a campaign queue, signed in: what most annotator-page tests start from."""

import pytest

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
