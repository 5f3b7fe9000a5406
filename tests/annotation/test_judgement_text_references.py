"""import_judgements: a text reference means exactly what it says before any spreadsheet unescaping."""

import pytest
from django.core.management import CommandError

from annotation.models import Campaign, Judgement
from tests.annotation.campaign_factories import import_judgement_rows
from tests.factories import make_dataset

pytestmark = pytest.mark.django_db


def import_rows(tmp_path, body, name="study"):
    import_judgement_rows(tmp_path, body, name)
    return Campaign.objects.get(name=name)


def judged_texts(campaign):
    return list(
        Judgement.objects.filter(assignment__item__campaign=campaign)
        .order_by("pk")
        .values_list("assignment__item__text__external_id", flat=True)
    )


@pytest.fixture
def dataset():
    dataset, _ = make_dataset(texts=3, systems=("alpha", "beta"))
    return dataset


def set_id(dataset, position, external_id):
    text = dataset.texts.get(position=position)
    text.external_id = external_id
    text.save()
    return text


def test_an_apostrophe_that_belongs_to_the_id_is_kept(tmp_path, dataset):
    set_id(dataset, 0, "'=1+1")
    set_id(dataset, 1, "=1+1")
    campaign = import_rows(tmp_path, "'=1+1,alpha,beta,ts,carol,a\n=1+1,alpha,beta,us,carol,b\n")
    assert judged_texts(campaign) == ["'=1+1", "=1+1"]


def test_the_exports_escape_is_undone_when_no_text_matches_exactly(tmp_path, dataset):
    set_id(dataset, 1, "=1+1")
    campaign = import_rows(tmp_path, "'=1+1,alpha,beta,ts,carol,a\n")
    assert judged_texts(campaign) == ["=1+1"]


def test_an_apostrophe_before_an_ordinary_reference_is_not_removed(tmp_path, dataset):
    # Only the exports' escape (an apostrophe before = + - @, tab or carriage return) is undone.
    with pytest.raises(CommandError, match=r"line 2: unknown text \"'toy-1\" in dataset toy"):
        import_rows(tmp_path, "'toy-1,alpha,beta,ts,carol,a\n")
    assert not Campaign.objects.exists()


def test_a_reference_naming_two_texts_is_refused_with_its_line(tmp_path, dataset):
    # The id of the first text is the content of the third: the row could mean either.
    third = dataset.texts.get(position=2)
    set_id(dataset, 0, third.content)
    with pytest.raises(CommandError) as refusal:
        import_rows(tmp_path, f'toy-2,alpha,beta,ts,carol,a\n"{third.content}",alpha,beta,us,carol,b\n')
    message = str(refusal.value)
    assert "line 3: the text reference" in message and "is the id of text 1 and the content of text 3" in message
    assert "line 2" not in message
    assert not Campaign.objects.exists()
