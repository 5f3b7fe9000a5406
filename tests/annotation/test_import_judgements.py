"""import_judgements: hand-made CSVs, canonical order, file order kept, bad lines change nothing."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Assignment, Campaign, Item, Judgement
from scoring.models import System
from tests.annotation.campaign_factories import JUDGEMENTS_HEADER
from tests.factories import make_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def dataset():
    dataset, _ = make_dataset(texts=3, systems=("alpha", "beta", "gamma"))
    return dataset


def write(tmp_path, body, name="study.csv"):
    path = tmp_path / name
    path.write_text(JUDGEMENTS_HEADER + body, encoding="utf-8")
    return path


def run(path, *extra):
    out = io.StringIO()
    call_command("import_judgements", str(path), "--dataset", "toy", *extra, stdout=out)
    return out.getvalue()


def counts():
    return (
        Campaign.objects.count(),
        Item.objects.count(),
        Assignment.objects.count(),
        Judgement.objects.count(),
        get_user_model().objects.count(),
    )


def test_rows_are_stored_in_canonical_order_and_file_order(tmp_path, dataset):
    content = dataset.texts.get(position=1).content
    path = write(
        tmp_path,
        "toy-1,beta,alpha,ts,carol,a\n"  # beta has the larger id: canonical (alpha, beta), winner b
        f'"{content}",alpha,gamma,us,carol,tie\n'  # the text itself
        f"{dataset.texts.get(position=2).pk},gamma,beta,fs,dave,b\n"  # the text id
        "toy-1,alpha,beta,ts,dave,A\n",
    )
    message = run(path)
    assert "Imported 4 judgements of 3 items by 2 annotators into campaign study (2 new accounts" in message

    campaign = Campaign.objects.get(name="study")
    assert campaign.is_imported and not campaign.is_open
    stored = list(
        Judgement.objects.order_by("pk").values_list(
            "assignment__item__text__position",
            "assignment__item__system_a__name",
            "assignment__item__system_b__name",
            "aspect",
            "assignment__annotator__username",
            "label",
        )
    )
    assert stored == [
        (0, "alpha", "beta", "ts", "carol", "b"),
        (1, "alpha", "gamma", "us", "carol", "tie"),
        (2, "beta", "gamma", "fs", "dave", "a"),
        (0, "alpha", "beta", "ts", "dave", "a"),
    ]
    # Both annotators judged the first item: the measured overlap is one text in three.
    assert campaign.overlap_share == pytest.approx(1 / 3)
    assert set(campaign.systems.values_list("name", flat=True)) == {"alpha", "beta", "gamma"}


def test_the_former_command_name_still_imports(tmp_path, dataset):
    out = io.StringIO()
    call_command(
        "import_judgments", str(write(tmp_path, "toy-1,alpha,beta,ts,carol,a\n")), "--dataset", "toy", stdout=out
    )
    assert out.getvalue().startswith("Imported 1 judgement of 1 item") and Judgement.objects.count() == 1


def test_new_annotators_cannot_sign_in_and_existing_accounts_are_reused(tmp_path, dataset):
    existing = get_user_model().objects.create_user("dave", password="dave-pass-123")
    run(write(tmp_path, "toy-1,alpha,beta,ts,carol,a\ntoy-1,alpha,beta,ts,dave,b\n"))
    carol = get_user_model().objects.get(username="carol")
    assert not carol.has_usable_password()
    existing.refresh_from_db()
    assert existing.check_password("dave-pass-123")


def test_the_same_file_twice_is_harmless(tmp_path, dataset):
    path = write(tmp_path, "toy-1,alpha,beta,ts,carol,a\ntoy-2,alpha,beta,ts,carol,tie\n")
    run(path)
    before = counts()
    assert "nothing changed" in run(path)
    assert counts() == before


def test_a_different_file_under_an_existing_name_is_refused(tmp_path, dataset):
    run(write(tmp_path, "toy-1,alpha,beta,ts,carol,a\n"))
    before = counts()
    with pytest.raises(CommandError, match="exists already, with other judgements"):
        run(write(tmp_path, "toy-1,alpha,beta,ts,carol,b\n"))
    assert counts() == before


def test_campaign_name_option_and_ground_truth(tmp_path, dataset):
    run(write(tmp_path, "toy-1,Ground truth,alpha,cs,carol,a\n"), "--campaign", "Pilot 2023")
    campaign = Campaign.objects.get(name="Pilot 2023")
    assert System.ground_truth() in campaign.systems.all()


def test_a_complete_item_is_done_and_a_partial_one_pending(tmp_path, dataset):
    body = "".join(f"toy-1,alpha,beta,{aspect},carol,a\n" for aspect in ("ts", "us", "fs", "gs", "cs"))
    run(write(tmp_path, body + "toy-2,alpha,beta,ts,carol,a\n"))
    statuses = dict(Assignment.objects.values_list("item__text__position", "status"))
    assert statuses == {0: "done", 1: "pending"}


@pytest.mark.parametrize(
    "body, message",
    [
        ("toy-9,alpha,beta,ts,carol,a\n", "line 3: unknown text 'toy-9' in dataset toy."),
        ("toy-1,alpha,omega,ts,carol,a\n", "line 3: unknown system 'omega' in system_b."),
        ("toy-1,alpha,beta,xx,carol,a\n", "line 3: unknown aspect 'xx' (expected ts, us, fs, gs, cs)."),
        ("toy-1,alpha,beta,ts,carol,c\n", "line 3: unknown winner 'c' (expected a, b or tie)."),
        ("toy-1,alpha,alpha,ts,carol,a\n", "line 3: system_a and system_b are both alpha."),
        ("toy-1,alpha,beta,ts,,a\n", "line 3: annotator '': This field cannot be blank."),
        (
            "toy-1,beta,alpha,ts,carol,b\n",
            "line 3: duplicate of line 2 (same text, systems, aspect ts and annotator carol).",
        ),
        ("toy-1,alpha,beta\n", "line 3: expected 6 fields, found fewer."),
    ],
)
def test_a_bad_line_is_named_and_nothing_changes(tmp_path, dataset, body, message):
    path = write(tmp_path, "toy-1,alpha,beta,ts,carol,a\n" + body)
    before = counts()
    with pytest.raises(CommandError) as error:
        run(path)
    assert message in str(error.value)
    assert counts() == before


def test_every_bad_line_is_listed(tmp_path, dataset):
    path = write(tmp_path, "toy-9,alpha,beta,ts,carol,a\ntoy-1,alpha,beta,zz,carol,a\ntoy-1,alpha,beta,ts,carol,a\n")
    with pytest.raises(CommandError) as error:
        run(path)
    assert "line 2: unknown text" in str(error.value) and "line 3: unknown aspect" in str(error.value)
    assert counts()[0] == 0


def test_a_missing_column_or_unreadable_file_is_refused(tmp_path, dataset):
    path = tmp_path / "bad.csv"
    path.write_text("text,system_a,system_b,aspect,winner\ntoy-1,alpha,beta,ts,a\n", encoding="utf-8")
    with pytest.raises(CommandError, match="line 1: the header lacks annotator"):
        run(path)
    path.write_bytes(JUDGEMENTS_HEADER.encode() + b"toy-1,alpha,beta,ts,\xff\xfe,a\n")
    with pytest.raises(CommandError, match="is not UTF-8 text"):
        run(path)
    with pytest.raises(CommandError, match="Cannot read"):
        run(tmp_path / "absent.csv")


def test_an_oversized_file_is_refused_before_reading(tmp_path, dataset, settings):
    settings.GENRES_MAX_UPLOAD_BYTES = 50
    path = write(tmp_path, "toy-1,alpha,beta,ts,carol,a\n" * 5)
    with pytest.raises(CommandError, match="more than the limit of 50"):
        run(path)


def test_unknown_dataset_and_invalid_campaign_name(tmp_path, dataset):
    path = write(tmp_path, "toy-1,alpha,beta,ts,carol,a\n", name="bad name!.csv")
    with pytest.raises(CommandError, match="from the file name\\) is not valid"):
        run(path)
    with pytest.raises(CommandError, match="No dataset named 'nope'"):
        call_command("import_judgements", str(path), "--dataset", "nope", "--campaign", "ok")


def test_the_summary_counts_in_the_singular_too(tmp_path, dataset):
    message = run(write(tmp_path, "toy-1,alpha,beta,ts,solo,a\n", name="one.csv"))

    assert "Imported 1 judgement of 1 item by 1 annotator into campaign one (1 new account," in message
