"""The judgement's aspect choices come from the vocabulary, with the values and labels its migration stores."""

from io import StringIO

import pytest
from django.core.management import call_command

from annotation.models import Aspect
from scoring.genres import aspects


def test_aspect_choices_are_the_vocabularys_aspects():
    assert Aspect.choices == [(aspect.code, aspect.name) for aspect in aspects.ASPECTS]
    assert Aspect.CS == "cs" and Aspect("ts").label == "Topical similarity"


@pytest.mark.django_db
def test_reading_the_vocabulary_leaves_the_migrations_as_they_are():
    call_command("makemigrations", "annotation", "scoring", check=True, dry_run=True, stdout=StringIO())
