import pytest
from django.urls import reverse

from scoring.models import Dataset, Output, System, Text

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def dataset():
    return Dataset.objects.create(name="CDR")


@pytest.fixture
def texts(dataset):
    return [
        Text.objects.create(
            dataset=dataset, position=position, external_id=f"doc-{position}", content=f"Text {position}."
        )
        for position in range(3)
    ]


def test_anonymous_visitors_are_sent_to_sign_in(client, texts):
    response = client.get(texts[0].get_absolute_url())
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_users_without_the_view_output_permission_get_403(client, annotator_user, texts):
    # Annotators judge systems blind: the text page would show which system wrote what.
    client.force_login(annotator_user)
    assert client.get(texts[0].get_absolute_url()).status_code == 403


def test_text_of_another_dataset_is_404(admin_client, texts):
    Dataset.objects.create(name="Other")
    assert admin_client.get(reverse("scoring:text", args=["Other", texts[0].pk])).status_code == 404
    assert admin_client.get(reverse("scoring:text", args=["CDR", 999999])).status_code == 404


def test_shows_text_gold_and_each_system_with_warnings_and_raw_reply(admin_client, dataset):
    text = Text.objects.create(
        dataset=dataset, position=0, content="Aspirin relieves headache.", gold=[["aspirin", "treats", "headache"]]
    )
    gpt = System.objects.create(name="GPT-4", family="GPT")
    llama = System.objects.create(name="LLaMA-2")
    Output.objects.create(
        system=gpt,
        text=text,
        triples=[["Aspirin", "relieves", "headache"]],
        raw='[["Aspirin", "relieves", "headache"], ["pain"]]',
        parse_warnings=["triple 2: expected 3 items, got 1"],
    )
    Output.objects.create(system=llama, text=text, triples=[])
    Output.objects.create(system=System.ground_truth(), text=text, triples=text.gold)

    response = admin_client.get(text.get_absolute_url())

    page = response.content.decode()
    assert "Aspirin relieves headache." in page
    assert '<span class="s">aspirin</span><span class="r">treats</span><span class="o">headache</span>' in page
    assert '<span class="s">Aspirin</span><span class="r">relieves</span><span class="o">headache</span>' in page
    assert "triple 2: expected 3 items, got 1" in page
    assert '<details class="raw"><summary>Raw reply' in page
    assert "No triples: the system extracted nothing from this text." in page
    # Gold triples are shown once, from the text; the Ground truth system is not listed again.
    assert [output.system.name for output in response.context["outputs"]] == ["GPT-4", "LLaMA-2"]
    assert page.count('<details class="raw">') == 1


def test_previous_and_next_links_follow_text_order(admin_client, texts):
    first, middle, last = texts

    middle_page = admin_client.get(middle.get_absolute_url()).content.decode()
    first_page = admin_client.get(first.get_absolute_url()).content.decode()
    last_page = admin_client.get(last.get_absolute_url()).content.decode()

    assert f'href="{first.get_absolute_url()}" rel="prev"' in middle_page
    assert f'href="{last.get_absolute_url()}" rel="next"' in middle_page
    assert 'rel="prev"' not in first_page and f'href="{middle.get_absolute_url()}" rel="next"' in first_page
    assert 'rel="next"' not in last_page and f'href="{middle.get_absolute_url()}" rel="prev"' in last_page


def test_untrusted_text_triples_and_raw_reply_are_escaped(admin_client, dataset):
    text = Text.objects.create(
        dataset=dataset, position=0, content=f"{HOSTILE} a <b>bold</b> claim", gold=[[HOSTILE, "<b>is</b>", "gold"]]
    )
    system = System.objects.create(name="GPT-4")
    Output.objects.create(
        system=system,
        text=text,
        triples=[["<b>x</b>", HOSTILE, "y"]],
        raw=f"Reply {HOSTILE} <b>raw</b>",
        parse_warnings=[f"could not parse {HOSTILE}"],
    )

    page = admin_client.get(text.get_absolute_url()).content.decode()

    assert HOSTILE not in page
    assert "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; a &lt;b&gt;bold&lt;/b&gt; claim" in page
    assert '<span class="r">&lt;b&gt;is&lt;/b&gt;</span>' in page
    assert (
        '<span class="s">&lt;b&gt;x&lt;/b&gt;</span><span class="r">&lt;script&gt;alert(1)&lt;/script&gt;</span>'
        in page
    )
    assert "Reply &lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;raw&lt;/b&gt;" in page
    assert "could not parse &lt;script&gt;" in page
